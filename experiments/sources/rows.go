package sources

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/notesbench/notesbench/results"
)

// The key policies of the sources experiment.
const (
	// KeyUUID is a fresh random UUID per citation, reused on its resend.
	KeyUUID = "uuid"
	// KeyRaw is a hash of the URL as the citation wrote it.
	KeyRaw = "raw"
	// KeyNormalized is a hash of the note ID and the normalized URL.
	KeyNormalized = "normalized"
)

// Run is one run of the sources experiment: one key policy and one seed,
// every session of the seed. Saved, Duplicates and BrowserFlagged are counted from
// the sources in the store at the end of the run.
type Run struct {
	KeyPolicy string `json:"key_policy"`
	Seed      uint64 `json:"seed"`
	Sessions  int    `json:"sessions"`

	// Citations counts the citations the sessions made (one add_note_source
	// intent each); CallsSent the add_note_source calls, resends included.
	Citations int `json:"citations"`
	CallsSent int `json:"calls_sent"`
	// Lists counts list_note_tabs calls, one per turn and one per conflict.
	Lists int `json:"lists"`
	// Commits counts calls that saved a source; Replays calls answered with a
	// stored first result.
	Commits int `json:"commits"`
	Replays int `json:"replays"`
	// Conflicts counts version_conflict replies.
	Conflicts int `json:"conflicts"`
	// RepliesLost counts successful replies the client never received.
	RepliesLost int `json:"replies_lost"`

	// Saved is the number of sources in the sessions' Notes at the end.
	Saved int `json:"saved"`
	// Duplicates counts saved sources whose normalized URL was already saved in
	// the same Note.
	Duplicates int `json:"duplicates"`
	// ResendDuplicates counts sources saved by a resend of a citation that an
	// earlier call had already saved, seen from the server's replies whether or
	// not they arrived. A key reused on its resend keeps it at 0.
	ResendDuplicates int `json:"resend_duplicates"`
	// BrowserFlagged counts the duplicates whose URL a browser-style href
	// comparison finds among the sources saved before it in the Note.
	BrowserFlagged int `json:"browser_flagged"`
	// Errors counts the calls that ended in a server error: a refusal other
	// than a version conflict, or an outcome nobody knows.
	Errors int `json:"errors"`
	// Info counts those that were outcomes nobody knows, Unreadable the
	// replies nobody could read.
	Info       int `json:"info"`
	Unreadable int `json:"unreadable"`
	// Faults is how many faults the run had between notesbench and the
	// server (--nemesis).
	Faults int `json:"faults"`
	// Stopped says why the run ended before the sessions were done, "" when
	// it ran to the end (see RaceRun.Stopped).
	Stopped string `json:"stopped"`
	// Unreadable says why the sources of a Note could not be listed at the
	// end (the server lost the document, or kept answering an error): the
	// sources it held count as none saved. "" when every listing read.
	UnreadableFinal string `json:"unreadable_final,omitempty"`
	// SetupFailed says why a Note of the run could not be made (the
	// server's own words), "" when every one was; the run ends there, and
	// counts what the Notes made before it hold.
	SetupFailed string `json:"setup_failed,omitempty"`
}

// EndedEarly implements Ender.
func (r Run) EndedEarly() string { return cmp.Or(r.Stopped, r.SetupFailed) }

// Unread implements Unreader.
func (r Run) Unread() string { return r.UnreadableFinal }

// Row is one row of the sources table: one key policy, counts summed over
// the seeds. PerSession is Duplicates per session run (sessions × seeds), rounded
// to four decimals.
// BrowserFlagged is set on the uuid row only, as published.
type Row struct {
	KeyPolicy      string  `json:"key_policy"`
	Saved          int     `json:"saved"`
	Duplicates     int     `json:"duplicates"`
	PerSession     float64 `json:"per_session"`
	BrowserFlagged *int    `json:"browser_flagged,omitempty"`
	// Errors counts the calls that ended in a server error, summed over the
	// seeds; Info those of them that were outcomes nobody knows; Faults the
	// faults the runs had (--nemesis).
	Errors int `json:"errors"`
	Info   int `json:"info"`
	Faults int `json:"faults"`
}

// Paging is the paging figure, a fact of the result: how many
// list_note_attachments calls at a page limit it took to list every source
// of one Note.
type Paging struct {
	// Sources is how many sources the Note held.
	Sources int
	// Limit is the limit of every call.
	Limit int
	// PagesCalls is the calls it took until a page came back without a cursor.
	PagesCalls int
	// Listed is how many distinct sources the calls returned together; anything
	// but Sources is a bug.
	Listed int
}

// Summarize groups runs into rows: one row per key policy, in order of first
// appearance, counts summed over the runs. Every policy must have exactly one run
// per seed; anything else is an error.
func Summarize(seeds []uint64, runs []Run) ([]Row, error) {
	var rows []Row
	var policies []string
	for _, r := range runs {
		if !slices.Contains(policies, r.KeyPolicy) {
			policies = append(policies, r.KeyPolicy)
		}
	}
	for _, p := range policies {
		row := Row{KeyPolicy: p}
		var sessions, flagged int
		for _, seed := range seeds {
			n := 0
			for _, r := range runs {
				if r.KeyPolicy != p || r.Seed != seed {
					continue
				}
				n++
				row.Saved += r.Saved
				row.Duplicates += r.Duplicates
				row.Errors += r.Errors
				row.Info += r.Info
				row.Faults += r.Faults
				sessions += r.Sessions
				flagged += r.BrowserFlagged
			}
			if n != 1 {
				return nil, fmt.Errorf("sources: key policy %s: %d runs for seed %d, want 1", p, n, seed)
			}
		}
		if n := countPolicy(runs, p); n != len(seeds) {
			return nil, fmt.Errorf("sources: key policy %s: %d runs for %d seeds", p, n, len(seeds))
		}
		if sessions > 0 {
			row.PerSession = math.Round(float64(row.Duplicates)/float64(sessions)*1e4) / 1e4
		}
		if p == KeyUUID {
			row.BrowserFlagged = &flagged
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func countPolicy(runs []Run, policy string) int {
	n := 0
	for _, r := range runs {
		if r.KeyPolicy == policy {
			n++
		}
	}
	return n
}

// sourcesFields reads SourcesRows by the names published.json uses.
var sourcesFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"key_policy": func(r Row) string { return r.KeyPolicy },
	},
	Figures: map[string]func(Row) results.Value{
		"saved":       results.Count(func(r Row) int { return r.Saved }),
		"duplicates":  results.Count(func(r Row) int { return r.Duplicates }),
		"per_session": results.Number(func(r Row) float64 { return r.PerSession }),
		"browser_flagged": func(r Row) results.Value {
			if r.BrowserFlagged == nil {
				return results.Value{}
			}
			return results.Value{Nums: []float64{float64(*r.BrowserFlagged)}}
		},
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return sourcesFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return sourcesFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return sourcesFields.Names() }
