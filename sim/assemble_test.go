package sim

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
)

// assembled runs exp on memTarget once for all seeds and once seed by seed,
// assembled, and returns both as JSON. It also fails t unless the run of all
// seeds, split, gives each seed's run alone.
func assembled[Row results.Row, Run any](t *testing.T, exp Runner[Row, Run], seeds []uint64) (whole, parts string) {
	t.Helper()
	ctx := context.Background()
	one, err := exp.Run(ctx, onMemory, seeds)
	if err != nil {
		t.Fatal(err)
	}
	each, err := RunEach(ctx, exp, onMemory, seeds, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	joined, err := Assemble(exp, each)
	if err != nil {
		t.Fatal(err)
	}
	split, err := Split(exp, one, len(seeds))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustMarshal(t, split), mustMarshal(t, each); a != b {
		t.Errorf("%T: one run split\n%s\nthe seeds run alone\n%s", exp, a, b)
	}
	return mustMarshal(t, one), mustMarshal(t, joined)
}

// A run of several seeds equals the runs of each seed alone, assembled: what
// shards of an experiment merge back into.
func TestAssembleEqualsOneRun(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testpass.Race {
		seeds = seeds[:2] // make test's time: make test-large assembles three
	}
	race := DefaultRace()
	race.Env = virtualEnv(seeds)
	race.Edits = 8
	tabs := DefaultTabs()
	tabs.Env = virtualEnv(seeds)
	tabs.Edits = 8
	fast := DefaultFast()
	fast.Env = virtualEnv(seeds)
	fast.Edits = 30
	for name, pair := range map[string][2]string{
		"race": pairOf(assembled(t, Runner[results.RaceRow, results.RaceRun](race), seeds)),
		"tabs": pairOf(assembled(t, Runner[results.TabsRow, results.RaceRun](tabs), seeds)),
		"fast": pairOf(assembled(t, Runner[results.FastRow, results.RaceRun](fast), seeds)),
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: one run\n%s\nassembled\n%s", name, pair[0], pair[1])
		}
	}
}

func pairOf(a, b string) [2]string { return [2]string{a, b} }

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run splits into seeds only when its runs are the same number for each.
func TestSplitRefusesUnevenRuns(t *testing.T) {
	race := DefaultRace()
	one := Result[results.RaceRow, results.RaceRun]{Runs: make([]results.RaceRun, 5)}
	if _, err := Split(Runner[results.RaceRow, results.RaceRun](race), one, 2); err == nil {
		t.Fatal("5 runs split into 2 seeds")
	}
}
