package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// Section is everything printed for one experiment's result, built once and
// never edited afterwards: its own tables (ours, the published figures beside
// them when the parameters are the published ones, the notes under them), then
// the verdicts.
type Section struct {
	Main []Table
	// Detail holds tables the experiment's own command prints between its
	// main tables and the verdicts, and a reproduction leaves out (bench's
	// repetitions and tests between guards).
	Detail   []Table
	Verdicts []Table
	// Records are the section's figures as CSV records (see CSVHeader): our
	// rows with the published figures and verdicts, and bench's detail.
	Records []Record
}

// Tables returns the section's tables in print order.
func (s Section) Tables() []Table {
	return slices.Concat(s.Main, s.Detail, s.Verdicts)
}

// Outcome is what a section is built from: the experiment's rows (the row type
// of the experiment: []results.RaceRow, []results.CreateRow, …), the line
// saying how ours ran, facts of the run that are not figures, and the
// comparison with the published figures.
type Outcome struct {
	Experiment string
	Rows       any
	Setup      string
	Facts      []string
	Comparison results.Comparison
	// TitleSuffix is added to the title of every main table, e.g. " (real
	// clock)" for a run printed beside the virtual-clock one.
	TitleSuffix string
}

// Build returns the section of an outcome. It panics on rows of the wrong
// type for the experiment, a bug of the caller.
func Build(o Outcome) Section {
	cmp := o.Comparison
	var exp *results.Experiment
	if cmp.Shown() {
		exp = cmp.Experiment
	}
	var main []mainTable
	var extra []string
	verdictTitle := "Verdicts: published figures against ours"
	if cmp.Replications > 0 {
		verdictTitle = fmt.Sprintf("Verdicts: published figures against %s of the published setup", Count(cmp.Replications, "replication"))
	}
	switch rows := o.Rows.(type) {
	case []results.RaceRow:
		main = one(RaceTable(rows, exp))
	case []results.TabsRow:
		main = one(TabsTable(rows, exp))
	case []results.FastRow:
		main = one(FastTable(rows, exp))
	case []results.CreateRow:
		main = createTables(rows, exp)
		if cmp.Singles > 0 {
			verdictTitle = fmt.Sprintf("Verdicts: each published seed against the single runs of %s", Count(cmp.Singles, "seed"))
		}
	case []results.SourcesRow:
		main = one(SourcesTable(rows, exp))
	case []results.RefsRow:
		main = one(RefsTable(rows, exp))
		extra = []string{
			"wrong deck: the reference resolved to another tab than the target — another deck, or, for a position, a fixed tab",
			"writes passing the version check are counted over the writes the check judged: a slide_add to a fixed tab is refused before any version check and left out",
			"the version check passes every write by construction, here as in the published model: nothing writes between the agent's listing and its write; it is shown, not judged",
		}
		verdictTitle = "Verdicts: published fractions against ours over as many trials (an exact binomial test)"
	case []results.OutlineRow:
		main = one(OutlineTable(rows, exp))
	case []results.ValidateRow:
		main = one(ValidateTable(rows, exp))
	default:
		panic(fmt.Sprintf("report: no section for %s rows of type %T", o.Experiment, o.Rows))
	}
	var s Section
	for i, m := range main {
		s.Main = append(s.Main, m.withNotes(i == 0, o, extra))
	}
	if len(cmp.Verdicts) > 0 {
		s.Verdicts = []Table{VerdictTable(verdictTitle, results.DefaultMass, cmp.Verdicts)}
	}
	s.Records = rowRecords(o.Experiment, o.Rows, cmp)
	return s
}

// BenchSection returns the section of a bench result: the table per guard, the
// repetitions and the tests between guards as detail, and the published
// medians and p99s as ratios. warnings are the bench's own (thin percentiles,
// tests that cannot reach significance) beside the comparison's.
func BenchSection(o Outcome, runs []results.BenchRunSummary, diffs []results.GuardDiff, warnings []string) Section {
	var exp *results.Experiment
	if o.Comparison.Shown() {
		exp = o.Comparison.Experiment
	}
	rows := o.Rows.([]results.BenchRow)
	s := Section{
		Main:   []Table{mainTable{table: BenchTable(rows, exp, warnings)}.withNotes(true, o, nil)},
		Detail: []Table{BenchRunsTable(runs)},
	}
	if len(diffs) > 0 {
		s.Detail = append(s.Detail, BenchDiffTable(diffs, results.DefaultAlpha))
	}
	if len(o.Comparison.Verdicts) > 0 {
		s.Verdicts = []Table{BenchVerdictTable(o.Comparison.Verdicts)}
	}
	s.Records = append(rowRecords("bench", rows, o.Comparison), benchDetailRecords(runs, diffs)...)
	return s
}

// withNotes returns m's table with the outcome's title suffix and the notes
// under it: how ours ran, then where the published figures come from or why
// they are not shown, then (under the first table) the warnings and extra.
func (m mainTable) withNotes(first bool, o Outcome, extra []string) Table {
	cmp := o.Comparison
	t := m.table
	t.Title += o.TitleSuffix
	setup := o.Setup
	if len(o.Facts) > 0 {
		setup += "; " + strings.Join(o.Facts, "; ")
	}
	t.Notes = append(slices.Clone(t.Notes), "ours: "+setup)
	switch {
	case !cmp.Shown():
		if first {
			t.Notes = append(t.Notes, "published figures not shown: parameters differ from the published setup: "+strings.Join(cmp.Differences, ", "))
		}
	default:
		for _, p := range m.sources(cmp.Published) {
			t.Notes = append(t.Notes, SourceNotes(p)...)
		}
	}
	if first {
		for _, w := range cmp.Warnings {
			t.Notes = append(t.Notes, "warning: "+w)
		}
		t.Notes = append(t.Notes, extra...)
	}
	return t
}

// mainTable is one of an experiment's own tables and, for an experiment with
// several published tables (create), the one it stands for.
type mainTable struct {
	table Table
	// published is the key "table" of the published table it stands for; ""
	// stands for every published table of the experiment.
	published string
}

func one(t Table) []mainTable { return []mainTable{{table: t}} }

// sources returns the published tables whose source notes go under m.
func (m mainTable) sources(pub []results.PubTable) []*results.PubTable {
	var out []*results.PubTable
	for i := range pub {
		if m.published == "" || (len(pub[i].Rows) > 0 && pub[i].Rows[0].Key["table"] == m.published) {
			out = append(out, &pub[i])
		}
	}
	return out
}
