package mcpclient

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/internal/ghshape"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// builtin returns a built-in profile.
func builtin(t testing.TB, name string) *profile.Profile {
	t.Helper()
	p, err := profile.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The notes profile is the Notes contract written as a profile: through it,
// create and sources count what the native path counts, run by run, on the
// same server (both run on the virtual clock, their lost replies drawn from
// the seed), and race's re-apply loses nothing.
func TestNotesProfileCountsAsNative(t *testing.T) {
	t.Parallel() // its counts and outcomes do not hang on timing: it runs beside the tests that wait
	spec := serveHTTP(t, contract.Variant{})
	native := dialT(t, spec, Options{})
	profiled := dialT(t, spec, Options{Profile: builtin(t, "notes")})
	seeds := []uint64{1, 2, 3}
	if testpass.Race || testing.Short() {
		seeds = seeds[:1] // make test's and -short's time; make test-large runs all three
	}

	createRun := func(tg *Target) any {
		cfg := create.Default()
		cfg.Seeds, cfg.Tabs, cfg.Order = seeds, 15, contract.OrderKeyFirst
		res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, seeds)
		if err != nil {
			t.Fatal(err)
		}
		return res.Runs
	}
	sourcesRun := func(tg *Target) any {
		cfg := sources.Default()
		cfg.Seeds, cfg.Sessions, cfg.ListSources = seeds, 5, 60
		res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, seeds)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for name, run := range map[string]func(*Target) any{"create": createRun, "sources": sourcesRun} {
		a, b := run(native), run(profiled)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: native and notes profile differ:\nnative  %+v\nprofile %+v", name, a, b)
		}
		if s := fmt.Sprintf("%+v", a); len(s) < 100 {
			t.Errorf("%s: suspiciously little compared: %s", name, s)
		}
	}

	cfg := race.Default()
	cfg.Seeds, cfg.Modes, cfg.Edits = []uint64{1}, []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}, 30
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 2 * time.Millisecond}, sim.Dist{Max: 2 * time.Millisecond}, "0"
	res, err := cfg.Run(ctx, sim.Runtime{Target: profiled}, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Runs[0]; r.Lost() != 0 || r.Claude.Writes+r.Human.Writes < 60 {
		t.Errorf("note/reapply through the notes profile: %+v", r)
	}
}

// ghshapeTarget serves a GitHub-shaped repository in a folder of its own over
// the SDK's in-memory transports, mapped through the github profile.
func ghshapeTarget(t testing.TB) *Target {
	t.Helper()
	srv := ghshape.New(t.TempDir())
	tg, err := New(ctx, "ghshape", func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err == nil {
			t.Cleanup(func() { ss.Close() })
		}
		return ct, err
	}, Options{Profile: builtin(t, "github")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// The github example profile against a server of that shape: sha as the
// version, 409 on a stale one. Re-applying after a conflict loses nothing;
// the server refuses stale writes, so conflicts are counted; refreshing
// the version and resending the old text loses lines anyway.
func TestGitHubShapedProfile(t *testing.T) {
	tg := ghshapeTarget(t)
	v, ok := tg.Served()
	if !ok || v.Guard != contract.GuardNote || v.VersionFormat != contract.FormatOpaque {
		t.Fatalf("served %v %v: want guard note and opaque versions (a blob's sha)", v, ok)
	}
	cfg := race.Default()
	cfg.Seeds, cfg.Edits, cfg.VersionFormat = []uint64{1, 2}, 40, v.VersionFormat
	cfg.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}, {Guard: contract.GuardNote, Policy: sim.Refresh}}
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 3 * time.Millisecond}, sim.Dist{Max: 3 * time.Millisecond}, "0"
	res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	reapply, refresh := res.Rows[0], res.Rows[1]
	if reapply.Lost != 0 || reapply.ConflictsClaude+reapply.ConflictsHuman == 0 {
		t.Errorf("reapply: lost %d, conflicts %d / %d", reapply.Lost, reapply.ConflictsClaude, reapply.ConflictsHuman)
	}
	if refresh.Lost == 0 {
		t.Errorf("refresh lost nothing in %+v", refresh)
	}
}

// outcomes returns each check's outcome by name.
func outcomes(rep results.ConformReport) map[string]results.ConformOutcome {
	out := map[string]results.ConformOutcome{}
	for _, c := range rep.Checks {
		out[c.Name] = c.Outcome
	}
	return out
}

// conform through a profile holds the server to what the profile maps: the
// GitHub-shaped server refuses a stale sha and a write without one, has no
// key, and its shas have no order; the notes profile on serve passes what
// the native path passes.
func TestConformThroughProfiles(t *testing.T) {
	t.Parallel() // its counts and outcomes do not hang on timing: it runs beside the tests that wait
	// The within-a-millisecond clause is not asserted here: a second bounds
	// its writes where the race detector makes them slow.
	quick := conform.Options{FastTime: time.Second}
	gh, err := conform.Run(ctx, ghshapeTarget(t), quick)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]results.ConformOutcome{"tools/list": results.ConformPass, "stale version": results.ConformPass, "no expected_version": results.ConformPass,
		"same-key resend": results.ConformNotApplicable, "lost reply, create": results.ConformNotApplicable, "versions increase": results.ConformNotApplicable,
		"concurrent writers": results.ConformPass, "per-tab versions": results.ConformNotApplicable}
	got := outcomes(gh)
	for name, o := range want {
		if got[name] != o {
			t.Errorf("github: %s: %s, want %s (%+v)", name, got[name], o, gh.Checks)
		}
	}
	if gh.Failed != 0 || gh.NotApplicable == 0 {
		t.Errorf("github: %d failed, %d not applicable", gh.Failed, gh.NotApplicable)
	}

	spec := serveHTTP(t, contract.Variant{})
	notes, err := conform.Run(ctx, dialT(t, spec, Options{Profile: builtin(t, "notes")}), quick)
	if err != nil {
		t.Fatal(err)
	}
	got = outcomes(notes)
	for _, name := range []string{"tools/list", "stale version", "no expected_version", "same-key resend", "lost reply, create", "versions increase", "concurrent writers"} {
		if got[name] != results.ConformPass {
			t.Errorf("notes: %s: %s (%+v)", name, got[name], notes.Checks)
		}
	}

	// A stale write through a profile whose write takes no version is let
	// through, and the evidence shows the calls.
	unguarded := serveHTTP(t, contract.Variant{Guard: contract.GuardNone})
	none, err := conform.Run(ctx, dialT(t, unguarded, Options{Profile: builtin(t, "notes")}), quick)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range none.Checks {
		if c.Name == "stale version" && (c.Outcome != results.ConformFail || len(c.Evidence) < 3 || c.Evidence[1].Tool != contract.ToolEditNoteTab) {
			t.Errorf("a server without a guard: %+v", c)
		}
	}
}

// A profile whose read or write names a tool the server does not list:
// Dial does not try the profile with it (the call could only fail, in the
// server's words: -32602 unknown tool), and Require says what is missing
// and what the server lists, as docs/profiles.md shows; conform reports its
// clauses, tools/list failing with the same line.
func TestProfileNamesAToolTheServerLacks(t *testing.T) {
	spec := serveHTTP(t, contract.Variant{})
	for _, tc := range []struct{ from, to, want string }{
		{`"tool": "read_note_tab"`, `"tool": "read_text_file"`, "lacks the tool read_text_file, which race needs; it lists add_note_source, create_note_tab, edit_note_tab, "},
		{`"tool": "edit_note_tab"`, `"tool": "write_file"`, "lacks the tool write_file, which race needs; it lists add_note_source, create_note_tab, edit_note_tab, "},
	} {
		data, err := profile.BuiltinJSON("notes")
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(data), tc.from, tc.to, 1)
		p, err := profile.Parse([]byte(strings.Replace(edited, `"name": "notes"`, `"name": "mine"`, 1)), "mine.json")
		if err != nil || edited == string(data) {
			t.Fatalf("%s: %v", tc.to, err)
		}
		tg, err := Dial(ctx, spec, Options{Profile: p})
		if err != nil {
			t.Errorf("%s: Dial: %v", tc.to, err)
			continue
		}
		want := "target " + spec.Raw + " " + tc.want
		if err := tg.Require("race", contract.CapRead, contract.CapWrite); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Require: %v, want %s…", tc.to, err, want)
		}
		rep, err := conform.Run(ctx, tg, conform.Options{})
		if err != nil || rep.Checks[0].Name != "tools/list" || rep.Checks[0].Outcome != results.ConformFail ||
			!strings.HasPrefix(rep.Checks[0].Detail, "target "+spec.Raw+" lacks the tool "+strings.Split(tc.to, `"`)[3]+", which conform needs") {
			t.Errorf("%s: conform: %v, %+v", tc.to, err, rep.Checks)
		}
		tg.Close()
	}
}

// A server that lacks the read and the write: conform still reports every
// clause, tools/list failing with the tools it lacks and lists, the others
// not applicable.
func TestConformLacksTools(t *testing.T) {
	tg, err := New(ctx, "other", serverOf(t, func(ts []contract.Tool) []contract.Tool { return ts[:1] }), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rep, err := conform.Run(ctx, tg, conform.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || rep.Checks[0].Name != "tools/list" || rep.Checks[0].Outcome != results.ConformFail ||
		rep.Checks[0].Detail != "target other lacks the tools read_note_tab, edit_note_tab, which conform needs; it lists list_note_tabs" ||
		rep.NotApplicable != len(rep.Checks)-1 {
		t.Errorf("%+v", rep)
	}
}
