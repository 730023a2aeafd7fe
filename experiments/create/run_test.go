package create

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/sim"
)

func createConfig(seeds []uint64, drop float64, table string) Config {
	cfg := Default()
	cfg.Seeds, cfg.Drop, cfg.Table = seeds, drop, table
	return cfg
}

// smallCreateConfig is createConfig with 20 tabs a run, for tests that sweep drop
// rates.
func smallCreateConfig(seeds []uint64, drop float64, table string) Config {
	cfg := createConfig(seeds, drop, table)
	cfg.Tabs = 20
	return cfg
}

func mustCreate(t *testing.T, cfg Config) sim.Result[Row, Run] {
	return simtest.MustRun[Row, Run](t, cfg)
}

// runsOf returns the runs of one row, in seed order.
func runsOf(res sim.Result[Row, Run], table string, order contract.Order, policy string) []Run {
	var out []Run
	for _, r := range res.Runs {
		if r.Table == table && r.Order == string(order) && r.KeyPolicy == policy {
			out = append(out, r)
		}
	}
	return out
}

var createSeeds = []uint64{1, 2, 5, 11, 42}

// createSweep is one run of every row at several drop rates, 20 tabs a run, shared
// by the tests that check properties over seeds and drop rates.
var createSweep = sync.OnceValues(func() ([]createSwept, error) {
	var out []createSwept
	for _, drop := range []float64{0.1, 0.3, 0.7} {
		res, err := simtest.RunOn(context.Background(), smallCreateConfig(createSeeds, drop, BothTables), simtest.OnMemory)
		if err != nil {
			return nil, err
		}
		out = append(out, createSwept{drop, res})
	}
	return out, nil
})

type createSwept struct {
	drop float64
	res  sim.Result[Row, Run]
}

// TestCreateSameKeyUnderKeyFirstCreatesIntended: with the key checked first, a
// client that keeps its key creates exactly the tabs it meant to, whatever the
// seed and drop rate; so does one that renews its key only after a conflict,
// since under key-first a resend never conflicts.
func TestCreateSameKeyUnderKeyFirstCreatesIntended(t *testing.T) {
	for _, sw := range simtest.MustGet(t, createSweep) {
		drop, res := sw.drop, sw.res
		lost := 0
		for _, r := range res.Runs {
			keeps := r.KeyPolicy == KeyRetry || r.KeyPolicy == KeyAfterConflict
			if r.Order != string(contract.OrderKeyFirst) || !keeps {
				continue
			}
			if r.TabsCreated != r.Intended || r.Duplicates != 0 {
				t.Errorf("drop %v, table %s %s, seed %d: %d tabs (%d duplicates), want %d", drop, r.Table, r.KeyPolicy, r.Seed, r.TabsCreated, r.Duplicates, r.Intended)
			}
			lost += r.RepliesLost
		}
		if drop > 0 && lost == 0 {
			t.Errorf("drop %v: no reply lost in any run; the test proves nothing", drop)
		}
	}
}

// TestCreateNewKeyCreatesOneTabPerLostReply: a client that takes a new key on its
// resend creates one extra tab for every lost reply, under either order.
func TestCreateNewKeyCreatesOneTabPerLostReply(t *testing.T) {
	for _, sw := range simtest.MustGet(t, createSweep) {
		drop, res := sw.drop, sw.res
		lost := 0
		for _, r := range res.Runs {
			if r.KeyPolicy != KeyNone && r.KeyPolicy != KeyFresh {
				continue
			}
			lost += r.RepliesLost
			if r.Duplicates != r.RepliesLost || r.TabsCreated != r.Intended+r.RepliesLost {
				t.Errorf("drop %v, %s %s %s, seed %d: %d tabs, %d duplicates for %d lost replies; want one duplicate per lost reply",
					drop, r.Table, r.Order, r.KeyPolicy, r.Seed, r.TabsCreated, r.Duplicates, r.RepliesLost)
			}
		}
		if lost == 0 {
			t.Errorf("drop %v: no reply lost in any run; the test proves nothing", drop)
		}
	}
}

// TestCreateVersionFirstNewKeyAfterConflictDuplicates: under version-first the
// stale resend of a lost commit conflicts, and a client that then takes a new key
// creates the tab a second time. Under key-first the same client creates none.
func TestCreateVersionFirstNewKeyAfterConflictDuplicates(t *testing.T) {
	res := simtest.MustGet(t, createSweep)[1].res
	for _, r := range runsOf(res, TableB, contract.OrderVersionFirst, KeyAfterConflict) {
		if r.Duplicates == 0 || r.Duplicates != r.Conflicts {
			t.Errorf("seed %d: %d duplicates after %d conflicts, want one per conflict and some", r.Seed, r.Duplicates, r.Conflicts)
		}
	}
	for _, r := range runsOf(res, TableB, contract.OrderKeyFirst, KeyAfterConflict) {
		if r.Duplicates != 0 {
			t.Errorf("key-first, seed %d: %d duplicates, want 0", r.Seed, r.Duplicates)
		}
	}
	// Keeping the key under version-first costs calls, not tabs.
	kf := runsOf(res, TableB, contract.OrderKeyFirst, KeyRetry)
	vf := runsOf(res, TableB, contract.OrderVersionFirst, KeyRetry)
	for i := range vf {
		if vf[i].Duplicates != 0 || vf[i].CallsSent <= kf[i].CallsSent {
			t.Errorf("version-first retry, seed %d: %d duplicates, %d calls (key-first %d); want 0 and more calls",
				vf[i].Seed, vf[i].Duplicates, vf[i].CallsSent, kf[i].CallsSent)
		}
	}
}

// TestCreateLostReplyNeverLosesACommit: every commit the server made, reply lost or
// not, is a tab in the Note at the end, and every tab the client believes it
// created exists.
func TestCreateLostReplyNeverLosesACommit(t *testing.T) {
	for _, sw := range simtest.MustGet(t, createSweep) {
		drop, res := sw.drop, sw.res
		for _, r := range res.Runs {
			if r.TabsCreated != r.Commits || r.Missing != 0 {
				t.Errorf("drop %v, %s %s %s, seed %d: %d tabs for %d commits, %d believed tabs missing",
					drop, r.Table, r.Order, r.KeyPolicy, r.Seed, r.TabsCreated, r.Commits, r.Missing)
			}
			if r.CallsSent != r.Commits+r.Replays+r.Conflicts {
				t.Errorf("drop %v, %s %s %s, seed %d: %d calls, but %d commits + %d replays + %d conflicts",
					drop, r.Table, r.Order, r.KeyPolicy, r.Seed, r.CallsSent, r.Commits, r.Replays, r.Conflicts)
			}
		}
	}
}

// TestCreateStreamsAlignAcrossPolicies: every row of a seed loses the same
// replies, so table A's two rows send the same calls, as published.
func TestCreateStreamsAlignAcrossPolicies(t *testing.T) {
	res := simtest.MustGet(t, createSweep)[1].res
	none := runsOf(res, TableA, contract.OrderKeyFirst, KeyNone)
	retry := runsOf(res, TableA, contract.OrderKeyFirst, KeyRetry)
	for i := range none {
		if none[i].CallsSent != retry[i].CallsSent {
			t.Errorf("seed %d: none sent %d calls, retry %d", none[i].Seed, none[i].CallsSent, retry[i].CallsSent)
		}
	}
	for _, seed := range createSeeds {
		lost := -1
		for _, r := range res.Runs {
			if r.Seed != seed {
				continue
			}
			if lost >= 0 && r.RepliesLost != lost {
				t.Errorf("seed %d: %s %s %s lost %d replies, another row %d", seed, r.Table, r.Order, r.KeyPolicy, r.RepliesLost, lost)
			}
			lost = r.RepliesLost
		}
	}
}

func TestCreateIsDeterministic(t *testing.T) {
	cfg := smallCreateConfig([]uint64{1, 2, 3}, 0.3, BothTables)
	first := mustCreate(t, cfg)
	cfg.Parallel = 1
	if again := mustCreate(t, cfg); !reflect.DeepEqual(first, again) {
		t.Errorf("same seeds gave different results:\n%+v\n%+v", first.Rows, again.Rows)
	}
	one := mustCreate(t, smallCreateConfig([]uint64{1}, 0.3, BothTables))
	two := mustCreate(t, smallCreateConfig([]uint64{2}, 0.3, BothTables))
	if reflect.DeepEqual(one.Rows, two.Rows) {
		t.Errorf("seeds 1 and 2 gave the same rows: %+v", one.Rows)
	}
	if !reflect.DeepEqual(one.Runs[0], first.Runs[0]) {
		t.Errorf("seed 1 alone gave %+v, among seeds 1-3 %+v", one.Runs[0], first.Runs[0])
	}
}

// TestCreateTabIDsAreDeterministic checks that tab IDs depend on the virtual clock
// only: two runs give the same IDs, per-Note counter and creation time included.
func TestCreateTabIDsAreDeterministic(t *testing.T) {
	cfg := createConfig([]uint64{3}, 0.3, TableA)
	c := createCase{TableA, contract.OrderKeyFirst, KeyNone}
	_, first, err := createRun(context.Background(), cfg, simtest.OnMemory, c, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, again, err := createRun(context.Background(), cfg, simtest.OnMemory, c, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("two runs gave different tabs:\n%v\n%v", first, again)
	}
	// The first tab is created after two store calls (the client's list, then
	// the create), so at epoch + 2 service times; the counter starts at 1.
	ms := sim.Epoch.Add(2 * cfg.ServiceTime).UnixMilli()
	if want := "sheet-1-" + strconv.FormatInt(ms, 36); first[0].TabID != want {
		t.Errorf("first tab ID %q, want %q", first[0].TabID, want)
	}
	for i, tab := range first {
		if n := strings.Split(tab.TabID, "-")[1]; n != strconv.Itoa(i+1) {
			t.Errorf("tab %d has ID %q, want counter %d", i, tab.TabID, i+1)
		}
	}
}

func TestCreateTableSelection(t *testing.T) {
	for table, want := range map[string]int{"a": 2, "b": 6, "both": 8} {
		res := mustCreate(t, createConfig([]uint64{1}, 0.3, table))
		if len(res.Rows) != want {
			t.Errorf("--table %s: %d rows, want %d", table, len(res.Rows), want)
		}
		for _, row := range res.Rows {
			if table != "both" && row.Table != table {
				t.Errorf("--table %s: a row of table %s", table, row.Table)
			}
		}
	}
}

func TestCreateConfigValidate(t *testing.T) {
	simtest.ExpectInvalid[Config, Row, Run](t, Default, []simtest.BadConfig[Config]{
		simtest.Bad(func(c *Config) { c.Drop = 1.5 }, "drop: 1.5 is not a probability (want 0 to 1)"),
		simtest.Bad(func(c *Config) { c.Drop = -0.1 }, "drop: -0.1 is not a probability (want 0 to 1)"),
		simtest.Bad(func(c *Config) { c.Drop = 1 }, "drop: 1 loses every reply, so the client would resend for ever (want below 1)"),
		simtest.Bad(func(c *Config) { c.Tabs = 0 }, "tabs: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Table = "c" }, `table: "c" is not one of a, b, both`),
		simtest.Bad(func(c *Config) { c.Seeds = nil }, "seeds: no seeds given"),
		simtest.Bad(func(c *Config) { c.ServiceTime = -1 }, "service_time_ns: -1ns is negative"),
		simtest.Bad(func(c *Config) { c.Parallel = -1 }, "parallel: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.Parallel = sim.MaxParallel + 1 }, "parallel: must be at most 256 (each run at once holds its own databases and editors)"),
	})
}

func TestCreateConfigJSON(t *testing.T) {
	b, err := json.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"seeds":[1,2,3],"tabs":50,"drop":0.3,"table":"both","order":"","service_time_ns":60000,"store":"","target":"","max_errors":0}`; string(b) != want {
		t.Errorf("config JSON\n got %s\nwant %s", b, want)
	}
}
