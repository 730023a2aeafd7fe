package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/refs"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/experiments/tabs"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/pgstore"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// The SQLite = PostgreSQL identity: on the virtual clock, with the same seeds
// and flags, every experiment that runs against the contract counts the same
// on both stores (fast covers the ms and us-suffix versions). It is the
// strongest check that the two implement one contract: a difference in any
// rule, any check order or any version shows up as a different count.
//
// The experiments run small (a seed or two, fewer edits and trials) so that
// the test stays quick; each compares every row, run and fact, wall times
// aside. fast runs with a service time of 200 µs, at which ms versions lose
// lines within 40 edits (and the test requires them to): at the default the
// three formats would all lose none, and a store that got ms versions wrong
// would count the same as one that got them right. Each run is bounded by a
// deadline, so that a store whose versions never match fails the test
// instead of retrying until go test's timeout.
func TestSQLiteAndPostgresCountTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("every experiment on both stores")
	}
	pg := &pgstore.Target{URL: pgtest.URL(t)}
	targets := []struct {
		name string
		t    contract.Target
	}{{"sqlite", &store.Target{InMemory: true}}, {"postgres", pg}}
	ctx, cancel := context.WithTimeout(context.Background(), identityDeadline)
	t.Cleanup(cancel) // after the parallel subtests

	for _, exp := range []struct {
		name string
		run  func(contract.Target) (any, error)
		// check, when set, judges the counts both stores agree on.
		check func(t *testing.T, rendered string)
	}{
		{"race", func(tg contract.Target) (any, error) {
			c := race.Default()
			c.Env = virtualEnv(1, 2)
			c.Modes = append(c.Modes, race.Mode{Guard: contract.GuardTab, Policy: sim.Refresh})
			c.Edits = 20
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}, nil},
		{"tabs", func(tg contract.Target) (any, error) {
			c := tabs.Default()
			c.Env = virtualEnv(1)
			c.Edits = 20
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}, nil},
		{"fast", func(tg contract.Target) (any, error) {
			c := fast.Default()
			c.Env = virtualEnv(1)
			c.ServiceTime = 200 * time.Microsecond
			c.Edits = 40
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}, func(t *testing.T, rendered string) {
			var res struct{ Rows []fast.Row }
			if err := json.Unmarshal([]byte(rendered), &res); err != nil {
				t.Fatal(err)
			}
			lost := map[string]int{}
			for _, r := range res.Rows {
				lost[r.VersionFormat] = r.Lost
			}
			if len(lost) != 3 || lost["ms"] == 0 || lost["us-suffix"] != 0 || lost["counter"] != 0 {
				t.Fatalf("lost lines by version format %v; want some for ms, none for us-suffix and counter", lost)
			}
			t.Logf("lost lines by version format, on both stores: %v", lost)
		}},
		{"create", func(tg contract.Target) (any, error) {
			c := create.Default()
			c.Seeds, c.Tabs, c.Parallel = []uint64{1}, 10, 2
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}, nil},
		{"sources", func(tg contract.Target) (any, error) {
			c := sources.Default()
			c.Seeds, c.Sessions, c.ListSources, c.ListLimit, c.Parallel = []uint64{1}, 5, 40, 25, 2
			return c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
		}, nil},
		{"refs", func(tg contract.Target) (any, error) {
			c := refs.Default()
			c.Trials, c.Parallel = 40, 2
			return c.Run(ctx, sim.Runtime{Target: tg}, []uint64{c.Seed})
		}, nil},
	} {
		t.Run(exp.name, func(t *testing.T) {
			t.Parallel()
			var got [2]string
			for i, tg := range targets {
				res, err := exp.run(tg.t)
				if err != nil {
					t.Fatalf("%s: %v", tg.name, err)
				}
				if got[i], err = withoutWallTimes(res); err != nil {
					t.Fatal(err)
				}
			}
			if got[0] != got[1] {
				t.Fatalf("SQLite and PostgreSQL differ:\n%s", firstDifference(got[0], got[1]))
			}
			if n, err := rowCount(got[0]); err != nil || n == 0 {
				t.Fatalf("%s made no rows (%v): %s", exp.name, err, got[0])
			}
			if exp.check != nil {
				exp.check(t, got[0])
			}
		})
	}
}

// identityDeadline bounds the identity test's runs, all of them: they take
// seconds, under the race detector on a loaded machine well under a minute.
const identityDeadline = 3 * time.Minute

// virtualEnv runs seeds on the virtual clock, two at a time.
func virtualEnv(seeds ...uint64) sim.Env {
	return sim.Env{Clock: sim.ClockVirtual, ServiceTime: sim.DefaultServiceTime, Seeds: seeds, Parallel: 2,
		Synchronous: contract.SyncNormal}
}

// withoutWallTimes renders v as indented JSON with every wall_s field left
// out: on the virtual clock it is virtual time and would match too, but the
// comparison is of counts.
func withoutWallTimes(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return "", err
	}
	var strip func(any)
	strip = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			delete(x, "wall_s")
			for _, y := range x {
				strip(y)
			}
		case []any:
			for _, y := range x {
				strip(y)
			}
		}
	}
	strip(tree)
	b, err = json.MarshalIndent(tree, "", " ")
	return string(b), err
}

// rowCount is the number of Rows in a result rendered by withoutWallTimes.
func rowCount(rendered string) (int, error) {
	var res struct{ Rows []json.RawMessage }
	err := json.Unmarshal([]byte(rendered), &res)
	return len(res.Rows), err
}

// firstDifference shows the first line where two renderings differ, with the
// lines before it.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			from := max(0, i-3)
			return fmt.Sprintf("line %d\nsqlite:   %s\npostgres: %s\ncontext:\n%s", i+1, x, y, strings.Join(al[from:min(len(al), i+1)], "\n"))
		}
	}
	return ""
}
