package sim

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/notesbench/notesbench/results"
)

// assembled runs exp once for all seeds and once seed by seed, assembled, and
// returns both as JSON.
func assembled[Row results.Row, Run any](t *testing.T, exp Experiment[Row, Run], seeds []uint64) (whole, parts string) {
	t.Helper()
	ctx := context.Background()
	one, err := exp.Run(ctx, seeds)
	if err != nil {
		t.Fatal(err)
	}
	each, err := RunEach(ctx, exp, seeds, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	joined, err := Assemble(exp, each)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(one)
	b, _ := json.Marshal(joined)
	return string(a), string(b)
}

// A run of several seeds equals the runs of each seed alone, assembled: what
// shards of an experiment merge back into.
func TestAssembleEqualsOneRun(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if raceDetector {
		seeds = seeds[:2] // make test's time: make test-full assembles three
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
	create := DefaultCreate()
	create.Seeds, create.Tabs, create.Target = seeds, 8, memTarget
	sources := DefaultSources()
	sources.Seeds, sources.Sessions, sources.Target = seeds, 5, memTarget
	for name, pair := range map[string][2]string{
		"race":    pairOf(assembled(t, Experiment[results.RaceRow, results.RaceRun](race), seeds)),
		"tabs":    pairOf(assembled(t, Experiment[results.TabsRow, results.RaceRun](tabs), seeds)),
		"fast":    pairOf(assembled(t, Experiment[results.FastRow, results.RaceRun](fast), seeds)),
		"create":  pairOf(assembled(t, Experiment[results.CreateRow, results.CreateRun](create), seeds)),
		"sources": pairOf(assembled(t, Experiment[results.SourcesRow, results.SourcesRun](sources), seeds)),
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: one run\n%s\nassembled\n%s", name, pair[0], pair[1])
		}
	}
}

func pairOf(a, b string) [2]string { return [2]string{a, b} }
