package results

import (
	"cmp"
	"math"
)

// EditorRun is what one scripted editor did in one run.
type EditorRun struct {
	// Edits is how many edits the editor meant to make (each one line or cell).
	Edits int `json:"edits"`
	// Writes is how many write calls it sent, retries included.
	Writes int `json:"writes"`
	// Conflicts is how many of those calls got a version conflict.
	Conflicts int `json:"conflicts"`
	// Lost is how many acknowledged edits are missing from the final Note.
	Lost int `json:"lost"`
	// MaxTries is the most calls one edit took.
	MaxTries int `json:"max_tries"`
	// Retried is how many edits needed more than one call.
	Retried int `json:"retried"`
	// Errors is how many of its calls ended in a server error: a refusal
	// other than a version conflict, or an outcome nobody knows (a timeout,
	// a server that died, a reply nobody could read). Each ended its edit.
	Errors int `json:"errors"`
	// Info is how many of those were outcomes nobody knows (Jepsen's info:
	// the call may have happened), Unreadable how many were reads that
	// found no document to read.
	Info       int `json:"info"`
	Unreadable int `json:"unreadable"`
	// Duplicates is how many of its lines or cells the final Note holds
	// more than once.
	Duplicates int `json:"duplicates"`
}

// MeanTries is the mean number of calls per edit.
func (e EditorRun) MeanTries() float64 {
	if e.Edits == 0 {
		return 0
	}
	return float64(e.Writes) / float64(e.Edits)
}

// RaceRun is one run (one seed) of the race, tabs or fast experiment: an agent
// ("claude") and a person ("human") editing one Note under one mode.
type RaceRun struct {
	Seed          uint64    `json:"seed"`
	Guard         string    `json:"guard"`
	Policy        string    `json:"policy"`
	VersionFormat string    `json:"version_format"`
	Claude        EditorRun `json:"claude"`
	Human         EditorRun `json:"human"`
	// WallS is the run's duration in seconds: wall time on the real clock,
	// virtual time on the virtual one.
	WallS float64 `json:"wall_s"`
	// Stopped says why the run ended before its editors were done (its
	// calls ended in errors as often as --max-errors allows), "" when it ran
	// to the end. Its counts are what it measured until then.
	Stopped string `json:"stopped"`
	// Unreadable says why the final state could not be read (the document
	// was gone, or answered as no document), the run's name first, "" when
	// it could: every acknowledged edit then counts as lost.
	Unreadable string `json:"unreadable"`
	// Faults is how many faults the run had between notesbench and the
	// server (--nemesis).
	Faults int `json:"faults"`
	// SetupFailed says why the run could not be set up (its document not
	// made, a session not opened: the server's own words), "" when it was;
	// such a run measured nothing, and the seeds beside it ran all the same.
	SetupFailed string `json:"setup_failed,omitempty"`
}

// EndedEarly implements Ender.
func (r RaceRun) EndedEarly() string { return cmp.Or(r.Stopped, r.SetupFailed) }

// Unread implements Unreader.
func (r RaceRun) Unread() string { return r.Unreadable }

// Lost is every acknowledged line or cell missing at the end of the run.
func (r RaceRun) Lost() int { return r.Claude.Lost + r.Human.Lost }

// Intended is every edit the two editors meant to make.
func (r RaceRun) Intended() int { return r.Claude.Edits + r.Human.Edits }

// RaceRow is one row of the race table: one guard and conflict policy over all
// seeds. Counts are summed over the runs; tries are per edit.
type RaceRow struct {
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

// SummarizeRace folds runs of one mode into a race row.
func SummarizeRace(runs []RaceRun) RaceRow {
	var row RaceRow
	var claude, human EditorRun
	for _, r := range runs {
		row.Guard, row.Policy = r.Guard, r.Policy
		row.LostClaude += r.Claude.Lost
		row.LostHuman += r.Human.Lost
		row.Intended += r.Intended()
		row.ConflictsClaude += r.Claude.Conflicts
		row.ConflictsHuman += r.Human.Conflicts
		row.ErrorsClaude += r.Claude.Errors
		row.ErrorsHuman += r.Human.Errors
		row.Faults += r.Faults
		row.InfoClaude += r.Claude.Info
		row.InfoHuman += r.Human.Info
		row.DuplicatesClaude += r.Claude.Duplicates
		row.DuplicatesHuman += r.Human.Duplicates
		row.UnreadableClaude += r.Claude.Unreadable
		row.UnreadableHuman += r.Human.Unreadable
		row.MaxTries = max(row.MaxTries, r.Claude.MaxTries, r.Human.MaxTries)
		row.WallS += r.WallS
		claude = addEditor(claude, r.Claude)
		human = addEditor(human, r.Human)
	}
	row.Lost = row.LostClaude + row.LostHuman
	row.MeanTriesClaude = Round(claude.MeanTries(), 4)
	row.MeanTriesHuman = Round(human.MeanTries(), 4)
	if claude.Edits > 0 {
		row.RetriedClaude = Round(float64(claude.Retried)/float64(claude.Edits), 4)
	}
	if len(runs) > 0 {
		row.WallS = Round(row.WallS/float64(len(runs)), 4)
	}
	row.Runs = len(runs)
	return row
}

func addEditor(a, b EditorRun) EditorRun {
	return EditorRun{
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

// TabsRow is one row of the tabs table: one version scope, claude on the text tab
// and the person on a Sheet tab. Writes are the edits each meant to make.
type TabsRow struct {
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

// SummarizeTabs folds runs of one scope into a tabs row.
func SummarizeTabs(runs []RaceRun) TabsRow {
	var row TabsRow
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

// FastRow is one row of the fast table: one version format with no think time.
type FastRow struct {
	VersionFormat string `json:"version_format"`
	Lost          int    `json:"lost"`
	Intended      int    `json:"intended"`
	RunsWithLoss  int    `json:"runs_with_loss"`
	// Errors counts the calls of both editors that ended in a server error
	// (EditorRun.Errors), summed over the runs.
	Errors int `json:"errors"`
	Runs   int `json:"runs"`
}

// SummarizeFast folds runs of one version format into a fast row.
func SummarizeFast(runs []RaceRun) FastRow {
	var row FastRow
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

// Round rounds x to places decimal places, as the records write figures.
func Round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// raceFields reads RaceRows by the names published.json uses.
var raceFields = Fields[RaceRow]{
	Keys: map[string]func(RaceRow) string{
		"guard":  func(r RaceRow) string { return r.Guard },
		"policy": func(r RaceRow) string { return r.Policy },
	},
	Figures: map[string]func(RaceRow) Value{
		"lost":              Count(func(r RaceRow) int { return r.Lost }),
		"lost_claude":       Count(func(r RaceRow) int { return r.LostClaude }),
		"lost_human":        Count(func(r RaceRow) int { return r.LostHuman }),
		"conflicts_claude":  Count(func(r RaceRow) int { return r.ConflictsClaude }),
		"conflicts_human":   Count(func(r RaceRow) int { return r.ConflictsHuman }),
		"max_tries":         Count(func(r RaceRow) int { return r.MaxTries }),
		"mean_tries_claude": Number(func(r RaceRow) float64 { return r.MeanTriesClaude }),
		"mean_tries_human":  Number(func(r RaceRow) float64 { return r.MeanTriesHuman }),
		"retried_claude":    Number(func(r RaceRow) float64 { return r.RetriedClaude }),
		"wall_s":            Number(func(r RaceRow) float64 { return r.WallS }),
	},
}

// KeyOf implements Row.
func (r RaceRow) KeyOf(name string) string { return raceFields.Key(r, name) }

// FigureOf implements Row.
func (r RaceRow) FigureOf(name string) (Value, bool) { return raceFields.Figure(r, name) }

// Names implements Row.
func (r RaceRow) Names() (keys, figures []string) { return raceFields.Names() }

// tabsFields reads TabsRows by the names published.json uses.
var tabsFields = Fields[TabsRow]{
	Keys: map[string]func(TabsRow) string{
		"guard": func(r TabsRow) string { return r.Guard },
	},
	Figures: map[string]func(TabsRow) Value{
		"conflicts_claude": Count(func(r TabsRow) int { return r.ConflictsClaude }),
		"writes_claude":    Count(func(r TabsRow) int { return r.WritesClaude }),
		"conflicts_human":  Count(func(r TabsRow) int { return r.ConflictsHuman }),
		"writes_human":     Count(func(r TabsRow) int { return r.WritesHuman }),
		"lost":             Count(func(r TabsRow) int { return r.Lost }),
	},
}

// KeyOf implements Row.
func (r TabsRow) KeyOf(name string) string { return tabsFields.Key(r, name) }

// FigureOf implements Row.
func (r TabsRow) FigureOf(name string) (Value, bool) { return tabsFields.Figure(r, name) }

// Names implements Row.
func (r TabsRow) Names() (keys, figures []string) { return tabsFields.Names() }

// fastFields reads FastRows by the names published.json uses.
var fastFields = Fields[FastRow]{
	Keys: map[string]func(FastRow) string{
		"version_format": func(r FastRow) string { return r.VersionFormat },
	},
	Figures: map[string]func(FastRow) Value{
		"lost":           Count(func(r FastRow) int { return r.Lost }),
		"intended":       Count(func(r FastRow) int { return r.Intended }),
		"runs_with_loss": Count(func(r FastRow) int { return r.RunsWithLoss }),
	},
}

// KeyOf implements Row.
func (r FastRow) KeyOf(name string) string { return fastFields.Key(r, name) }

// FigureOf implements Row.
func (r FastRow) FigureOf(name string) (Value, bool) { return fastFields.Figure(r, name) }

// Names implements Row.
func (r FastRow) Names() (keys, figures []string) { return fastFields.Names() }
