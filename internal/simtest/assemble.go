package simtest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// assembled runs exp on MemTarget once for all seeds and once seed by seed,
// assembled, and returns both as JSON. It also fails t unless the run of all
// seeds, split, gives each seed's run alone.
func assembled[Row results.Row, Run any](t testing.TB, exp sim.Runner[Row, Run], seeds []uint64) (whole, parts string) {
	t.Helper()
	ctx := context.Background()
	one, err := exp.Run(ctx, OnMemory, seeds)
	if err != nil {
		t.Fatal(err)
	}
	each, err := sim.RunEach(ctx, exp, OnMemory, seeds, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	joined, err := sim.Assemble(exp, each)
	if err != nil {
		t.Fatal(err)
	}
	split, err := sim.Split(exp, one, len(seeds))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustMarshal(t, split), mustMarshal(t, each); a != b {
		t.Errorf("%T: one run split\n%s\nthe seeds run alone\n%s", exp, a, b)
	}
	return mustMarshal(t, one), mustMarshal(t, joined)
}

func mustMarshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// CheckAssembled fails t unless a run of exp for seeds equals the runs of
// each seed alone, assembled: what shards of an experiment merge back into.
func CheckAssembled[Row results.Row, Run any](t testing.TB, exp sim.Runner[Row, Run], seeds []uint64) {
	t.Helper()
	if whole, parts := assembled(t, exp, seeds); whole != parts {
		t.Errorf("one run\n%s\nassembled\n%s", whole, parts)
	}
}
