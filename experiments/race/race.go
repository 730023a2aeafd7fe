// Package race is the race experiment, lost updates with and without the
// version check (claude and a person append lines to one text): its
// configuration and run, its rows, its table and its descriptor, Experiment,
// which experiments.All registers.
package race

import (
	"strconv"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Experiment is the race experiment: lost updates with and without the version
// check.
var Experiment = experiment.Define(experiment.Def[Config, Row, results.RaceRun]{
	Info: experiment.Info{
		Name:  "race",
		Short: "Lost updates with and without the version check (claude and a person append lines to one text)",
		Long: `race runs a scripted agent ("claude") and a scripted person ("human") against one
Note. Each edit pauses, reads the text tab, thinks, and writes the text plus one
unique line; on a version conflict the editor re-reads and writes again at once,
re-applying its line to the fresh text (reapply) or resending its old text with the
fresh version (refresh). Lines acknowledged by the store and missing at the end are
lost updates. The defaults are the published setup.

The write-up states no pause between edits. By default each editor pauses for a
draw from its own think range, read from the published wall time (--timing
default). --timing published-fit pauses U(0, the think maximum) and lengthens every
pause and think by min(d/4, 5ms): a model inferred from the published figures, not
stated in the write-up. --pause and --oversleep set the two rules one by one.

See docs/model.md (the model and its timing) and docs/usage.md (shared flags).`,
		Examples: []string{
			"notesbench race                        # the published setup on the wall clock, then verdicts",
			"notesbench race --clock virtual        # the same, deterministic, without sleeping",
			"notesbench race --target 'stdio:notesbench serve --db race.db' --modes note/reapply",
		},
		Target: true, History: true, Replications: results.MinReplications, Baseline: true, Faults: true,
		Reproduce: experiment.Plan{Timings: true},
		Needs:     []contract.Capability{contract.CapRead, contract.CapWrite},
	},
	Default: Default,
	Params: func(c *Config) []experiment.Param {
		return append(experiment.EnvParams(&c.Env), append([]experiment.Param{
			experiment.Custom("modes", "string", "rows to run: guard/policy pairs (guard none, note or tab; policy reapply or refresh)",
				func() string { return FormatModes(c.Modes) },
				func(s string) error {
					m, err := ParseModes(s)
					if err != nil {
						return err
					}
					c.Modes = m
					return nil
				}).Completing(true, modeValues()...).ServedAs(func(v contract.Variant) string {
				if v.Guard == contract.GuardNone {
					return "none"
				}
				return string(v.Guard) + "/reapply," + string(v.Guard) + "/refresh"
			}),
			experiment.Bool("reissue", &c.Reissue, "send a write whose outcome is unknown (its reply lost, its stream cut, its server killed) again, the same call with the same key, up to "+strconv.Itoa(sim.MaxReissues)+" times, as MCP 2026-07-28 asks of a client whose response stream broke; without it the edit is given up"),
		}, experiment.EditingParams(&c.Editing)...)...)
	},
	Published: func(c Config) Config {
		def := Default()
		def.Editing = experiment.PublishedUnder(def.Editing, c.Editing)
		return def
	},
	Finish: func(c *Config, given func(string) bool) error { return experiment.FinishEditing(&c.Editing, given) },
	Serve:  func(c *Config, v contract.Variant) { c.VersionFormat = v.VersionFormat },
	Invariants: []results.Invariant{
		{Key: "policy", Value: "reapply", Figure: "lost", Why: "re-applying after a conflict never loses a line"},
	},
	Tables:  experiment.OneTable(Table),
	Editing: func(c *Config) *sim.Editing { return &c.Editing },
})

// modeValues are race's guard/policy pairs, for completion: none takes no
// policy.
func modeValues() []string {
	out := []string{string(contract.GuardNone)}
	for _, g := range contract.Guards.Values[1:] {
		for _, p := range sim.Policies.Values {
			out = append(out, string(g)+"/"+string(p))
		}
	}
	return out
}
