package experiment_test

import (
	"slices"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/sim"
)

// A composition's typed change configures the run, counts the parameters
// it names as given, and writes them as flags in the order named, with the
// values the configuration holds.
func TestConfigure(t *testing.T) {
	modes := []race.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}}
	x, err := experiment.Configure(race.Experiment,
		experiment.Change[race.Config]{Given: []string{"seeds", "edits"}, Set: func(c *race.Config) { c.Seeds, c.Edits = []uint64{1, 2, 3}, 20 }},
		experiment.Change[race.Config]{},
		experiment.Change[race.Config]{Given: []string{"modes"}, Set: func(c *race.Config) { c.Modes = modes }})
	if err != nil {
		t.Fatal(err)
	}
	c := x.Config().(race.Config)
	if !slices.Equal(c.Seeds, []uint64{1, 2, 3}) || c.Edits != 20 || !slices.Equal(c.Modes, modes) {
		t.Errorf("configured: seeds %v, edits %d, modes %v", c.Seeds, c.Edits, c.Modes)
	}
	if !x.Given("modes") || x.Given("parallel") {
		t.Errorf("given: modes %v, parallel %v", x.Given("modes"), x.Given("parallel"))
	}
	want := []string{"--seeds", "1-3", "--edits", "20", "--modes", "none"}
	if got := x.Flags(); !slices.Equal(got, want) {
		t.Errorf("flags: %q, want %q", got, want)
	}
	if got := x.Flags("seeds", "modes"); !slices.Equal(got, []string{"--edits", "20"}) {
		t.Errorf("flags but seeds and modes: %q", got)
	}
}

// A change the command line would not say is refused: one naming a
// parameter the experiment has not, one setting a parameter it does not
// name, one of another experiment's configuration.
func TestConfigureRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"unknown", func() error {
			_, err := experiment.Configure(race.Experiment, experiment.Change[race.Config]{Given: []string{"tabs"}, Set: func(*race.Config) {}})
			return err
		}, "experiment: race has no parameter tabs"},
		{"unnamed", func() error {
			_, err := experiment.Configure(race.Experiment, experiment.Change[race.Config]{Given: []string{"seeds"}, Set: func(c *race.Config) { c.Edits = 7 }})
			return err
		}, "experiment: race: a change sets edits without naming it"},
		{"another", func() error {
			_, err := experiment.Configure(race.Experiment, experiment.Change[create.Config]{})
			return err
		}, "experiment: race is not configured by a create.Config"},
	} {
		if err := tc.err(); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
}
