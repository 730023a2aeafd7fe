package sources

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/sim"
)

// smallSourcesConfig is the published setup with fewer sessions, for tests that
// sweep seeds.
func smallSourcesConfig(seeds ...uint64) Config {
	cfg := Default()
	cfg.Seeds, cfg.Sessions = seeds, 40
	return cfg
}

func mustSources(t *testing.T, cfg Config) sim.Result[Row, Run] {
	return simtest.MustRun[Row, Run](t, cfg)
}

func sourcesRunOf(t *testing.T, res sim.Result[Row, Run], policy string, seed uint64) Run {
	t.Helper()
	for _, r := range res.Runs {
		if r.KeyPolicy == policy && r.Seed == seed {
			return r
		}
	}
	t.Fatalf("no %s run for seed %d", policy, seed)
	return Run{}
}

// scriptCounts counts, from the script alone, the distinct pages and the distinct
// URLs as written that each session cites, summed over the sessions.
func scriptCounts(cfg Config, seed uint64) (pages, written int) {
	for _, s := range sourcesScript(cfg, seed) {
		p, w := map[int]bool{}, map[string]bool{}
		for _, turn := range s.turns {
			for _, c := range turn {
				p[c.page], w[c.written] = true, true
			}
		}
		pages += len(p)
		written += len(w)
	}
	return pages, written
}

var sourcesSeeds = []uint64{1, 2, 7, 99}

// sourcesSweep is one run over sourcesSeeds with 25 sessions a seed, shared by the
// tests that check exact counts and properties.
var sourcesSweep = sync.OnceValues(func() (sim.Result[Row, Run], error) {
	return simtest.RunOn(context.Background(), sweepSourcesConfig(), simtest.OnMemory)
})

func sweepSourcesConfig() Config {
	cfg := smallSourcesConfig(sourcesSeeds...)
	cfg.Sessions = 25
	return cfg
}

// TestSourcesExactCounts checks every key policy against counts taken from the
// script alone: uuid saves every citation, raw one source per distinct spelling,
// normalized one per distinct page; duplicates are what exceeds the pages.
func TestSourcesExactCounts(t *testing.T) {
	cfg, res := sweepSourcesConfig(), simtest.MustGet(t, sourcesSweep)
	citations := cfg.Sessions * cfg.Turns * cfg.Cites
	for _, seed := range cfg.Seeds {
		pages, written := scriptCounts(cfg, seed)
		want := map[string]int{
			KeyUUID:       citations,
			KeyRaw:        written,
			KeyNormalized: pages,
		}
		for _, policy := range sourcesPolicies {
			r := sourcesRunOf(t, res, policy, seed)
			if r.Saved != want[policy] || r.Duplicates != want[policy]-pages {
				t.Errorf("seed %d, %s: saved %d with %d duplicates, want %d with %d", seed, policy, r.Saved, r.Duplicates, want[policy], want[policy]-pages)
			}
			if r.Citations != citations || r.ResendDuplicates != 0 {
				t.Errorf("seed %d, %s: %d citations, %d resend duplicates; want %d, 0", seed, policy, r.Citations, r.ResendDuplicates, citations)
			}
			if r.RepliesLost == 0 {
				t.Errorf("seed %d, %s: no reply lost; the test proves nothing", seed, policy)
			}
			if r.CallsSent != r.Commits+r.Replays+r.Conflicts || r.Saved != r.Commits {
				t.Errorf("seed %d, %s: %d calls, %d commits, %d replays, %d conflicts, %d saved; calls and commits do not add up",
					seed, policy, r.CallsSent, r.Commits, r.Replays, r.Conflicts, r.Saved)
			}
			if r.BrowserFlagged > r.Duplicates {
				t.Errorf("seed %d, %s: %d flagged of %d duplicates", seed, policy, r.BrowserFlagged, r.Duplicates)
			}
		}
		if uuid := sourcesRunOf(t, res, KeyUUID, seed); uuid.BrowserFlagged == 0 {
			t.Errorf("seed %d: a browser-style check flagged none of %d duplicates", seed, uuid.Duplicates)
		}
	}
}

// TestSourcesRows checks the rows: sums over seeds, per session, and a browser
// figure on the uuid row alone.
func TestSourcesRows(t *testing.T) {
	res := simtest.MustGet(t, sourcesSweep)
	if len(res.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(res.Rows))
	}
	for i, row := range res.Rows {
		if row.KeyPolicy != sourcesPolicies[i] {
			t.Errorf("row %d is %s, want %s", i, row.KeyPolicy, sourcesPolicies[i])
		}
		var saved, dups int
		for _, seed := range sourcesSeeds {
			r := sourcesRunOf(t, res, row.KeyPolicy, seed)
			saved, dups = saved+r.Saved, dups+r.Duplicates
		}
		if row.Saved != saved || row.Duplicates != dups {
			t.Errorf("%s: row %+v does not sum its runs (%d saved, %d duplicates)", row.KeyPolicy, row, saved, dups)
		}
		if (row.BrowserFlagged != nil) != (row.KeyPolicy == KeyUUID) {
			t.Errorf("%s: browser_flagged %v, want it on the uuid row only", row.KeyPolicy, row.BrowserFlagged)
		}
	}
	if got := res.Rows[2]; got.Duplicates != 0 || got.PerSession != 0 {
		t.Errorf("normalized row %+v, want no duplicates", got)
	}
	// The paging figure is a fact: 120 sources at 50 a page are 3 calls.
	if want := []string{"listing 120 sources at limit 50 took 3 calls"}; !slices.Equal(res.Facts, want) {
		t.Errorf("facts %q, want %q", res.Facts, want)
	}
}

func TestSourcesIsDeterministic(t *testing.T) {
	small := func(seeds ...uint64) Config {
		cfg := smallSourcesConfig(seeds...)
		cfg.Sessions = 10
		return cfg
	}
	cfg := small(1, 2)
	first := mustSources(t, cfg)
	cfg.Parallel = 1
	if again := mustSources(t, cfg); !reflect.DeepEqual(first, again) {
		t.Errorf("same seeds gave different results:\n%+v\n%+v", first.Rows, again.Rows)
	}
	one, two := mustSources(t, small(1)), mustSources(t, small(2))
	if reflect.DeepEqual(one.Rows, two.Rows) {
		t.Errorf("seeds 1 and 2 gave the same rows: %+v", one.Rows)
	}
	if !reflect.DeepEqual(one.Runs[0], first.Runs[0]) {
		t.Errorf("seed 1 alone gave %+v, among seeds 1-2 %+v", one.Runs[0], first.Runs[0])
	}
}

// TestSourcesLossesAlign: every key policy of a seed loses the same replies,
// since each citation ends at its first reply that arrives.
func TestSourcesLossesAlign(t *testing.T) {
	res := simtest.MustGet(t, sourcesSweep)
	for _, seed := range sourcesSeeds {
		uuid := sourcesRunOf(t, res, KeyUUID, seed)
		for _, policy := range sourcesPolicies[1:] {
			if r := sourcesRunOf(t, res, policy, seed); r.RepliesLost != uuid.RepliesLost {
				t.Errorf("seed %d: %s lost %d replies, uuid %d", seed, policy, r.RepliesLost, uuid.RepliesLost)
			}
		}
	}
}

func TestSourcesPaging(t *testing.T) {
	for _, tt := range []struct{ sources, limit, calls int }{
		{0, 50, 1}, {1, 50, 1}, {50, 50, 1}, {51, 50, 2}, {100, 50, 2}, {120, 50, 3}, {120, 7, 18}, {3, 1, 3},
	} {
		cfg := Default()
		cfg.ListSources, cfg.ListLimit = tt.sources, tt.limit
		p, err := sourcesPaging(context.Background(), cfg, simtest.MemTarget)
		if err != nil {
			t.Fatalf("%d sources at limit %d: %v", tt.sources, tt.limit, err)
		}
		if p.PagesCalls != tt.calls || p.Listed != tt.sources {
			t.Errorf("%d sources at limit %d: %d calls listed %d, want %d calls listing all", tt.sources, tt.limit, p.PagesCalls, p.Listed, tt.calls)
		}
	}
}

func TestSessionPagesAreDistinct(t *testing.T) {
	r := sim.Stream(5, "sources")
	for range 50 {
		pages := sessionPages(r, 8)
		seen := map[string]bool{}
		for _, p := range pages {
			n, err := NormalizeURL(p.spell(spellCanonical))
			if err != nil {
				t.Fatal(err)
			}
			if seen[n] {
				t.Errorf("page %s drawn twice in one session", n)
			}
			seen[n] = true
		}
	}
}

func TestRandomUUID(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	r := sim.Stream(1, "uuid")
	seen := map[string]bool{}
	for range 1000 {
		u := sim.RandomUUID(r)
		if !form.MatchString(u) || seen[u] {
			t.Fatalf("UUID %q: malformed or repeated", u)
		}
		seen[u] = true
	}
}

func TestSourcesConfigValidate(t *testing.T) {
	simtest.ExpectInvalid[Config, Row, Run](t, Default, []simtest.BadConfig[Config]{
		simtest.Bad(func(c *Config) { c.Cites = 9 }, "cites: 9 is more than the 8 pages"),
		simtest.Bad(func(c *Config) { c.Sessions = 0 }, "sessions: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Turns = -1 }, "turns: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Pages = 0 }, "pages: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Cites = 0 }, "cites: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Drop = 1.5 }, "drop: 1.5 is not a probability (want 0 to 1)"),
		simtest.Bad(func(c *Config) { c.ListSources = -1 }, "list_sources: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.ListLimit = 100 }, "list_limit: 100 is not 1 to 50"),
		simtest.Bad(func(c *Config) { c.Seeds = []uint64{} }, "seeds: no seeds given"),
		simtest.Bad(func(c *Config) { c.Parallel = -1 }, "parallel: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.Parallel = sim.MaxParallel + 1 }, "parallel: must be at most 256 (each run at once holds its own databases and editors)"),
	})
}

func TestSourcesConfigJSON(t *testing.T) {
	b, err := json.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seeds":[1],"sessions":300,"turns":3,"pages":8,"cites":6,"drop":0.2,"list_sources":120,"list_limit":50,"service_time_ns":60000,"store":"","target":"","max_errors":0}`
	if string(b) != want {
		t.Errorf("config JSON\n got %s\nwant %s", b, want)
	}
}
