package backend

import (
	"context"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/bench"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/refs"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/experiments/tabs"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/pgstore"
	"github.com/notesbench/notesbench/sim"
)

// serializableURL is the test server's URL in the Serializable isolation
// mode.
func serializableURL(t *testing.T) string {
	t.Helper()
	u := pgtest.URL(t)
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + pgstore.IsolationParam + "=" + string(pgstore.Serializable)
}

// On the virtual clock the Serializable mode counts what the default
// (READ COMMITTED, the Note's row locked) counts, in every experiment that
// runs against the contract: with one editor at a time no transaction is
// refused, and nothing else of a run depends on the mode. (The default counts
// what SQLite counts: TestSQLiteAndPostgresCountTheSame.) Under the race
// detector make test leaves it to make test-large: the same runs on the
// default mode are under the detector in TestSQLiteAndPostgresCountTheSame,
// and the Serializable mode's racing writers in pgstore's
// TestContractSerializable.
func TestSerializableCountsAsTheLockingMode(t *testing.T) {
	if testing.Short() {
		t.Skip("every experiment on PostgreSQL twice: make test-large runs it")
	}
	testpass.Large(t, "every experiment on PostgreSQL twice")
	locking := &pgstore.Target{URL: pgtest.URL(t)}
	serializable := &pgstore.Target{URL: serializableURL(t)}
	if locking.Isolation() != pgstore.ReadCommitted || serializable.Isolation() != pgstore.Serializable {
		t.Fatalf("isolation %q and %q", locking.Isolation(), serializable.Isolation())
	}
	ctx := context.Background()
	for _, exp := range []struct {
		name string
		run  func(contract.Target) (any, error)
	}{
		{"race", func(tg contract.Target) (any, error) {
			c := race.Default()
			c.Env = virtualEnv(2)
			c.Modes = append(c.Modes, race.Mode{Guard: contract.GuardTab, Policy: sim.Reapply})
			c.Edits = 20
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}},
		{"tabs", func(tg contract.Target) (any, error) {
			c := tabs.Default()
			c.Env = virtualEnv(3)
			c.Edits = 20
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}},
		{"fast", func(tg contract.Target) (any, error) {
			c := fast.Default()
			c.Env = virtualEnv(2)
			c.Edits = 40
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}},
		{"create", func(tg contract.Target) (any, error) {
			c := create.Default()
			c.Seeds, c.Tabs, c.Parallel = []uint64{2}, 6, 2
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}},
		{"sources", func(tg contract.Target) (any, error) {
			c := sources.Default()
			c.Seeds, c.Sessions, c.ListSources, c.ListLimit, c.Parallel = []uint64{2}, 5, 40, 25, 2
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}},
		{"refs", func(tg contract.Target) (any, error) {
			c := refs.Default()
			c.Trials, c.Parallel = 40, 2
			return c.Run(ctx, sim.Runtime{Target: tg}, []uint64{c.Seed})
		}},
	} {
		t.Run(exp.name, func(t *testing.T) {
			t.Parallel()
			var got [2]string
			for i, tg := range []contract.Target{locking, serializable} {
				res, err := exp.run(tg)
				if err != nil {
					t.Fatalf("%s: %v", tg.Describe(), err)
				}
				if got[i], err = withoutWallTimes(res); err != nil {
					t.Fatal(err)
				}
			}
			if got[0] != got[1] {
				t.Fatalf("the locking and the Serializable mode differ:\n%s", firstDifference(got[0], got[1]))
			}
			if n, err := rowCount(got[0]); err != nil || n == 0 {
				t.Fatalf("%s made no rows (%v): %s", exp.name, err, got[0])
			}
		})
	}
}

// bench reports retries per write for a PostgreSQL store, in either mode,
// and none for SQLite, which does not count them.
func TestBenchShowsRetriesOnPostgres(t *testing.T) {
	for _, tc := range []struct {
		name    string
		target  contract.Target
		counted bool
	}{
		{"serializable", &pgstore.Target{URL: serializableURL(t)}, true},
		{"locking", &pgstore.Target{URL: pgtest.URL(t)}, true},
		{"sqlite", Memory(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := bench.Default()
			c.Writes, c.Warmup, c.Reps, c.Writers, c.Guards = 30, 5, 1, []int{1, 4}, []contract.Guard{contract.GuardNote}
			res, err := c.Run(context.Background(), sim.Runtime{Target: tc.target}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 2 {
				t.Fatalf("rows %+v", res.Rows)
			}
			for _, r := range res.Rows {
				if (r.RetriesPerWrite != nil) != tc.counted {
					t.Fatalf("%d writers: retries per write %v, want counted %v", r.Writers, r.RetriesPerWrite, tc.counted)
				}
				if r.RetriesPerWrite != nil {
					t.Logf("%d writers: %.3f retries per write", r.Writers, *r.RetriesPerWrite)
				}
			}
			runs := 0
			for _, r := range res.Runs {
				if r.RetriesCounted != tc.counted {
					t.Fatalf("run %+v", r)
				}
				runs++
			}
			if runs != 2 {
				t.Fatalf("%d runs", runs)
			}
		})
	}
}

// A bad notesbench_isolation is a field error on the store, one line naming
// the URL without its password and the parameter.
func TestCheckRefusesABadIsolation(t *testing.T) {
	msg := fieldError(t, Spec{Store: "postgres://u:secret@h/db?notesbench_isolation=snapshot"}.Check(), "store")
	want := `store: postgres://u@h/db?notesbench_isolation=snapshot: parsing the URL: notesbench_isolation: unknown isolation "snapshot" (want read_committed or serializable)`
	if msg != want {
		t.Fatalf("%q, want %q", msg, want)
	}
	if err := (Spec{Store: "postgres://u:secret@h/db?notesbench_isolation=serializable"}).Check(); err != nil {
		t.Fatal(err)
	}
}
