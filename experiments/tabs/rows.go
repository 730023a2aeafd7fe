package tabs

import (
	"github.com/notesbench/notesbench/results"
)

// Row is one row of the tabs table: one version scope, claude on the text tab
// and the person on a Sheet tab. Writes are the edits each meant to make.
type Row struct {
	Guard           string `json:"guard"`
	ConflictsClaude int    `json:"conflicts_claude"`
	WritesClaude    int    `json:"writes_claude"`
	ConflictsHuman  int    `json:"conflicts_human"`
	WritesHuman     int    `json:"writes_human"`
	Lost            int    `json:"lost"`
	// ErrorsClaude and ErrorsHuman count the calls that ended in a server
	// error (EditorRun.Errors), summed over the runs.
	ErrorsClaude int `json:"errors_claude"`
	ErrorsHuman  int `json:"errors_human"`
	Runs         int `json:"runs"`
}

// Summarize folds runs of one scope into a tabs row.
func Summarize(runs []results.RaceRun) Row {
	var row Row
	for _, r := range runs {
		row.Guard = r.Guard
		row.ConflictsClaude += r.Claude.Conflicts
		row.WritesClaude += r.Claude.Edits
		row.ConflictsHuman += r.Human.Conflicts
		row.WritesHuman += r.Human.Edits
		row.Lost += r.Lost()
		row.ErrorsClaude += r.Claude.Errors
		row.ErrorsHuman += r.Human.Errors
	}
	row.Runs = len(runs)
	return row
}

// tabsFields reads TabsRows by the names published.json uses.
var tabsFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"guard": func(r Row) string { return r.Guard },
	},
	Figures: map[string]func(Row) results.Value{
		"conflicts_claude": results.Count(func(r Row) int { return r.ConflictsClaude }),
		"writes_claude":    results.Count(func(r Row) int { return r.WritesClaude }),
		"conflicts_human":  results.Count(func(r Row) int { return r.ConflictsHuman }),
		"writes_human":     results.Count(func(r Row) int { return r.WritesHuman }),
		"lost":             results.Count(func(r Row) int { return r.Lost }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return tabsFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return tabsFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return tabsFields.Names() }
