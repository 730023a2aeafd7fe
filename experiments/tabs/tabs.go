// Package tabs is the tabs experiment, false conflicts from a Note-wide
// version (claude on the text, a person on a Sheet): its configuration and
// run, its rows, its table and its descriptor, Experiment, which
// experiments.All registers.
package tabs

import (
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Experiment is the tabs experiment: the false conflicts of a Note-wide version.
var Experiment = experiment.Define(experiment.Def[Config, Row, results.RaceRun]{
	Info: experiment.Info{
		Name:  "tabs",
		Short: "False conflicts from a Note-wide version (claude on the text, a person on a Sheet)",
		Long: `tabs runs claude appending lines to the text tab while the person writes one new
cell per edit in a Sheet tab, with the same pause/read/think/write loop and re-apply on
conflict. The two never touch the same tab, so every conflict is a false one: it
measures what a Note-wide version costs against per-tab versions. --timing,
--pause and --oversleep are race's.

See docs/model.md (the model and its timing) and docs/usage.md (shared flags).`,
		Examples: []string{
			"notesbench tabs --clock virtual",
			"notesbench tabs --clock virtual --timing published-fit",
			"notesbench tabs --scopes tab --edits 50",
		},
		Target: true, History: true, Replications: results.MinReplications, Baseline: true,
		Reproduce: experiment.Plan{Timings: true},
		Needs:     []contract.Capability{contract.CapRead, contract.CapWrite, contract.CapList, contract.CapCreate, contract.CapEditTabs},
	},
	Default: Default,
	Params: func(c *Config) []experiment.Param {
		return append(experiment.EnvParams(&c.Env), append([]experiment.Param{
			experiment.EnumList("scopes", &c.Scopes, contract.Guards, "version scopes to run: note, tab (and none)").
				ServedAs(func(v contract.Variant) string { return string(v.Guard) }),
		}, experiment.EditingParams(&c.Editing)...)...)
	},
	Published: func(c Config) Config {
		def := Default()
		def.Editing = experiment.PublishedUnder(def.Editing, c.Editing)
		return def
	},
	Finish: func(c *Config, given func(string) bool) error { return experiment.FinishEditing(&c.Editing, given) },
	Invariants: []results.Invariant{
		{Figure: "lost", Why: "the editors never touch the same tab"},
		{Key: "guard", Value: "tab", Figure: "conflicts_claude", Why: "per-tab versions"},
		{Key: "guard", Value: "tab", Figure: "conflicts_human", Why: "per-tab versions"},
	},
	Tables:  experiment.OneTable(Table),
	Editing: func(c *Config) *sim.Editing { return &c.Editing },
})
