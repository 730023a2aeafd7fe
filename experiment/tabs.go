package experiment

import (
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Tabs is the tabs experiment: the false conflicts of a Note-wide version.
var Tabs = Define(Def[sim.Tabs, results.TabsRow, results.RaceRun]{
	Info: Info{
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
		Reproduce: Plan{Timings: true},
		Needs:     []contract.Capability{contract.CapRead, contract.CapWrite, contract.CapList, contract.CapCreate, contract.CapEditTabs},
	},
	Default: sim.DefaultTabs,
	Params: func(c *sim.Tabs) []Param {
		return append(envParams(&c.Env), append([]Param{
			EnumList("scopes", &c.Scopes, contract.Guards, "version scopes to run: note, tab (and none)").
				ServedAs(func(v contract.Variant) string { return string(v.Guard) }),
		}, editingParams(&c.Editing)...)...)
	},
	Published: func(c sim.Tabs) sim.Tabs {
		def := sim.DefaultTabs()
		def.Editing = publishedEditing(def.Editing, c.Editing)
		return def
	},
	Finish: func(c *sim.Tabs, given func(string) bool) error { return finishEditing(&c.Editing, given) },
	Invariants: []results.Invariant{
		{Figure: "lost", Why: "the editors never touch the same tab"},
		{Key: "guard", Value: "tab", Figure: "conflicts_claude", Why: "per-tab versions"},
		{Key: "guard", Value: "tab", Figure: "conflicts_human", Why: "per-tab versions"},
	},
	Tables:  OneTable(report.TabsTable),
	Editing: func(c *sim.Tabs) *sim.Editing { return &c.Editing },
})
