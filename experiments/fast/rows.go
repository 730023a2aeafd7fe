package fast

import (
	"github.com/notesbench/notesbench/results"
)

// Row is one row of the fast table: one version format with no think time.
type Row struct {
	VersionFormat string `json:"version_format"`
	Lost          int    `json:"lost"`
	Intended      int    `json:"intended"`
	RunsWithLoss  int    `json:"runs_with_loss"`
	// Errors counts the calls of both editors that ended in a server error
	// (EditorRun.Errors), summed over the runs.
	Errors int `json:"errors"`
	Runs   int `json:"runs"`
}

// Summarize folds runs of one version format into a fast row.
func Summarize(runs []results.RaceRun) Row {
	var row Row
	for _, r := range runs {
		row.VersionFormat = r.VersionFormat
		row.Lost += r.Lost()
		row.Intended += r.Intended()
		if r.Lost() > 0 {
			row.RunsWithLoss++
		}
		row.Errors += r.Claude.Errors + r.Human.Errors
	}
	row.Runs = len(runs)
	return row
}

// fastFields reads FastRows by the names published.json uses.
var fastFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"version_format": func(r Row) string { return r.VersionFormat },
	},
	Figures: map[string]func(Row) results.Value{
		"lost":           results.Count(func(r Row) int { return r.Lost }),
		"intended":       results.Count(func(r Row) int { return r.Intended }),
		"runs_with_loss": results.Count(func(r Row) int { return r.RunsWithLoss }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return fastFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return fastFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return fastFields.Names() }
