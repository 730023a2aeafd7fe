package race

import (
	"github.com/notesbench/notesbench/results"
)

// Row is one row of the race table: one guard and conflict policy over all
// seeds. Counts are summed over the runs; tries are per edit.
type Row struct {
	Guard           string  `json:"guard"`
	Policy          string  `json:"policy"`
	Lost            int     `json:"lost"`
	LostClaude      int     `json:"lost_claude"`
	LostHuman       int     `json:"lost_human"`
	Intended        int     `json:"intended"`
	ConflictsClaude int     `json:"conflicts_claude"`
	ConflictsHuman  int     `json:"conflicts_human"`
	MaxTries        int     `json:"max_tries"`
	MeanTriesClaude float64 `json:"mean_tries_claude"`
	MeanTriesHuman  float64 `json:"mean_tries_human"`
	// RetriedClaude is the share of claude's edits that needed a second call.
	RetriedClaude float64 `json:"retried_claude"`
	// ErrorsClaude and ErrorsHuman count the calls that ended in a server
	// error (EditorRun.Errors), summed over the runs.
	ErrorsClaude int `json:"errors_claude"`
	ErrorsHuman  int `json:"errors_human"`
	// Faults counts the faults the runs had (RaceRun.Faults); InfoClaude
	// and InfoHuman the editors' info outcomes, DuplicatesClaude and
	// DuplicatesHuman their lines the final Note holds more than once, and
	// UnreadableClaude and UnreadableHuman their reads that found no
	// document (EditorRun), summed over the runs.
	Faults           int `json:"faults"`
	InfoClaude       int `json:"info_claude"`
	InfoHuman        int `json:"info_human"`
	DuplicatesClaude int `json:"duplicates_claude"`
	DuplicatesHuman  int `json:"duplicates_human"`
	UnreadableClaude int `json:"unreadable_claude"`
	UnreadableHuman  int `json:"unreadable_human"`
	// WallS is the mean duration of one run, in seconds.
	WallS float64 `json:"wall_s"`
	Runs  int     `json:"runs"`
}

// Summarize folds runs of one mode into a race row.
func Summarize(runs []results.RaceRun) Row {
	var row Row
	var claude, human results.EditorRun
	for _, r := range runs {
		row.Guard, row.Policy = r.Guard, r.Policy
		row.Intended += r.Intended()
		row.Faults += r.Faults
		row.WallS += r.WallS
		claude, human = addEditor(claude, r.Claude), addEditor(human, r.Human)
	}
	row.LostClaude, row.LostHuman = claude.Lost, human.Lost
	row.ConflictsClaude, row.ConflictsHuman = claude.Conflicts, human.Conflicts
	row.ErrorsClaude, row.ErrorsHuman = claude.Errors, human.Errors
	row.InfoClaude, row.InfoHuman = claude.Info, human.Info
	row.DuplicatesClaude, row.DuplicatesHuman = claude.Duplicates, human.Duplicates
	row.UnreadableClaude, row.UnreadableHuman = claude.Unreadable, human.Unreadable
	row.MaxTries = max(claude.MaxTries, human.MaxTries)
	row.Lost = row.LostClaude + row.LostHuman
	row.MeanTriesClaude = results.Round(claude.MeanTries(), 4)
	row.MeanTriesHuman = results.Round(human.MeanTries(), 4)
	if claude.Edits > 0 {
		row.RetriedClaude = results.Round(float64(claude.Retried)/float64(claude.Edits), 4)
	}
	if len(runs) > 0 {
		row.WallS = results.Round(row.WallS/float64(len(runs)), 4)
	}
	row.Runs = len(runs)
	return row
}

func addEditor(a, b results.EditorRun) results.EditorRun {
	return results.EditorRun{
		Edits:      a.Edits + b.Edits,
		Writes:     a.Writes + b.Writes,
		Conflicts:  a.Conflicts + b.Conflicts,
		Lost:       a.Lost + b.Lost,
		MaxTries:   max(a.MaxTries, b.MaxTries),
		Retried:    a.Retried + b.Retried,
		Errors:     a.Errors + b.Errors,
		Info:       a.Info + b.Info,
		Unreadable: a.Unreadable + b.Unreadable,
		Duplicates: a.Duplicates + b.Duplicates,
	}
}

// raceFields reads RaceRows by the names published.json uses.
var raceFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"guard":  func(r Row) string { return r.Guard },
		"policy": func(r Row) string { return r.Policy },
	},
	Figures: map[string]func(Row) results.Value{
		"lost":              results.Count(func(r Row) int { return r.Lost }),
		"lost_claude":       results.Count(func(r Row) int { return r.LostClaude }),
		"lost_human":        results.Count(func(r Row) int { return r.LostHuman }),
		"conflicts_claude":  results.Count(func(r Row) int { return r.ConflictsClaude }),
		"conflicts_human":   results.Count(func(r Row) int { return r.ConflictsHuman }),
		"max_tries":         results.Count(func(r Row) int { return r.MaxTries }),
		"mean_tries_claude": results.Number(func(r Row) float64 { return r.MeanTriesClaude }),
		"mean_tries_human":  results.Number(func(r Row) float64 { return r.MeanTriesHuman }),
		"retried_claude":    results.Number(func(r Row) float64 { return r.RetriedClaude }),
		"wall_s":            results.Number(func(r Row) float64 { return r.WallS }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return raceFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return raceFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return raceFields.Names() }
