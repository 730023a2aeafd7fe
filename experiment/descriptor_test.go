package experiment_test

import (
	"strings"
	"testing"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/tabs"
	"github.com/notesbench/notesbench/results"
)

// The invariants each experiment declares catch the rows that break them,
// and only those.
func TestInvariants(t *testing.T) {
	raceTable := []race.Row{
		{Guard: "note", Policy: "reapply", Lost: 0},
		{Guard: "note", Policy: "refresh", Lost: 250},
		{Guard: "tab", Policy: "reapply", Lost: 3},
	}
	d := results.CheckInvariants(experiment.InvariantsOf(race.Experiment), raceTable)
	if len(d) != 1 || d[0].Path != "rows[2].lost" || d[0].Current != "3" {
		t.Fatalf("race: %v", d)
	}
	tabsTable := []tabs.Row{
		{Guard: "note", ConflictsClaude: 117, ConflictsHuman: 69},
		{Guard: "tab", ConflictsHuman: 2},
	}
	if d := results.CheckInvariants(experiment.InvariantsOf(tabs.Experiment), tabsTable); len(d) != 1 || d[0].Path != "rows[1].conflicts_human" {
		t.Fatalf("tabs: %v", d)
	}
	fastTable := []fast.Row{{VersionFormat: "ms", Lost: 40}, {VersionFormat: "counter"}}
	if d := results.CheckInvariants(experiment.InvariantsOf(fast.Experiment), fastTable); len(d) != 0 {
		t.Fatalf("fast: %v", d)
	}
	fastTable[1].Lost = 1
	if d := results.CheckInvariants(experiment.InvariantsOf(fast.Experiment), fastTable); len(d) != 1 || d[0].Path != "rows[1].lost" || d[0].Baseline != "0 (counter versions never collide)" {
		t.Fatalf("fast counter loss: %v", d)
	}
}

// differencesOf sets params (name, value, …) on a fresh race and returns how
// it departs from the published setup.
func differencesOf(t *testing.T, params ...string) []string {
	t.Helper()
	in := race.Experiment.New()
	given := map[string]bool{}
	for i := 0; i < len(params); i += 2 {
		for _, p := range in.Params() {
			if p.Name == params[i] {
				if err := p.Set(params[i+1]); err != nil {
					t.Fatal(err)
				}
				given[p.Name] = true
			}
		}
	}
	if err := in.Finish(func(name string) bool { return given[name] }); err != nil {
		t.Fatal(err)
	}
	return experiment.Differences(in)
}

// A rule of one's own departs from the published setup; a timing profile,
// another reading of it, does not; other parameters do.
func TestDifferences(t *testing.T) {
	for _, tc := range []struct {
		params []string
		want   string
	}{
		{nil, ""},
		{[]string{"timing", "published-fit"}, ""},
		{[]string{"pause", "uniform0", "oversleep", "5ms"}, "pause uniform0 (published think), oversleep 5ms (published none)"},
		{[]string{"seeds", "1-3", "edits", "30"}, "seeds 1-3 (published 1-5), edits 30 (published 100)"},
		{[]string{"clock", "virtual", "service-time", "200us"}, "service-time 200µs (our model of the published setup: 60µs)"},
		{[]string{"modes", "note/reapply", "parallel", "3"}, ""},
	} {
		if got := strings.Join(differencesOf(t, tc.params...), ", "); got != tc.want {
			t.Errorf("%v: differences %q, want %q", tc.params, got, tc.want)
		}
	}
}
