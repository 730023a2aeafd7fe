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

// Round rounds x to places decimal places, as the records write figures.
func Round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}
