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

// Parts is what a section is built from: an experiment's main tables, built
// by its table builder from its rows, the rows themselves (for the CSV
// records), the line saying how ours ran, facts of the run that are not
// figures, the comparison with the published figures and what the
// experiment adds of its own.
type Parts struct {
	Experiment string
	Tables     []MainTable
	Rows       []results.Row
	Setup      string
	Facts      []string
	Comparison results.Comparison
	// TitleSuffix is added to the title of every main table, e.g. " (real
	// clock)" for a run printed beside the virtual-clock one.
	TitleSuffix string
	// Notes go under the first main table, after the warnings.
	Notes []string
	// VerdictTitle, when set and not "", gives the verdict table's title
	// instead of the one the comparison gives.
	VerdictTitle func(cmp results.Comparison) string
	// Published reports whether a published row may stand beside row; nil
	// means every row (bench publishes one writer only).
	Published func(row results.Row) bool
	// Detail are tables printed between the main tables and the verdicts,
	// which a reproduction leaves out; DetailRecords their CSV records.
	Detail        []Table
	DetailRecords []Record
	// VerdictTable, when set, renders the verdicts instead of VerdictTable.
	VerdictTable func(verdicts []results.Verdict) Table
}

// Build returns the section of parts.
func Build(p Parts) Section {
	cmp := p.Comparison
	title := ""
	if p.VerdictTitle != nil {
		title = p.VerdictTitle(cmp)
	}
	switch {
	case title != "":
	case cmp.Replications > 0:
		title = fmt.Sprintf("Verdicts: published figures against %s of the published setup", Count(cmp.Replications, "replication"))
	default:
		title = "Verdicts: published figures against ours"
	}
	var s Section
	for i, m := range p.Tables {
		s.Main = append(s.Main, m.withNotes(i == 0, p))
	}
	s.Detail = p.Detail
	if len(cmp.Verdicts) > 0 {
		if p.VerdictTable != nil {
			s.Verdicts = []Table{p.VerdictTable(cmp.Verdicts)}
		} else {
			s.Verdicts = []Table{VerdictTable(title, results.DefaultMass, cmp.Verdicts)}
		}
	}
	s.Records = append(rowRecords(p.Experiment, p.Rows, cmp, p.Published), p.DetailRecords...)
	return s
}

// Shown returns the published experiment the tables of cmp show beside
// ours: nil when the parameters differ from the published ones.
func Shown(cmp results.Comparison) *results.Experiment {
	if cmp.Shown() {
		return cmp.Experiment
	}
	return nil
}

// withNotes returns m's table with the outcome's title suffix and the notes
// under it: how ours ran, then where the published figures come from or why
// they are not shown, then (under the first table) the warnings and extra.
func (m MainTable) withNotes(first bool, o Parts) Table {
	cmp := o.Comparison
	t := m.Table
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
		t.Notes = append(t.Notes, o.Notes...)
	}
	return t
}

// MainTable is one of an experiment's own tables and, for an experiment with
// several published tables (create), the one it stands for.
type MainTable struct {
	Table Table
	// Published is the key "table" of the published table it stands for; ""
	// stands for every published table of the experiment.
	Published string
}

// One is the main tables of an experiment with one table.
func One(t Table) []MainTable { return []MainTable{{Table: t}} }

// sources returns the published tables whose source notes go under m.
func (m MainTable) sources(pub []results.PubTable) []*results.PubTable {
	var out []*results.PubTable
	for i := range pub {
		if m.Published == "" || (len(pub[i].Rows) > 0 && pub[i].Rows[0].Key["table"] == m.Published) {
			out = append(out, &pub[i])
		}
	}
	return out
}
