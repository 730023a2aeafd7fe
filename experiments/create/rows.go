package create

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/notesbench/notesbench/results"
)

// The tables of the create experiment.
const (
	// TableA is the English text's table: key checked first, and the client
	// re-lists for the fresh version before it resends.
	TableA = "a"
	// TableB is the Italian text's table: both check orders, and a resend
	// carries the version from before the lost commit.
	TableB = "b"
)

// The client key policies of the create experiment.
const (
	// KeyNone is table A's client without a key worth the name: a new key on
	// every call, resends included.
	KeyNone = "none"
	// KeyFresh is table B's client that takes a new key on every call.
	KeyFresh = "fresh"
	// KeyRetry keeps the key of an intent on every resend after a lost reply
	// and after a conflict.
	KeyRetry = "retry"
	// KeyAfterConflict keeps the key on a resend after a lost reply but treats
	// the call after a conflict (and its re-list) as a new intent with a new key.
	KeyAfterConflict = "after-conflict"
)

// Run is one run of the create experiment: one table, server order, client
// key policy and seed, against a store of its own. TabsCreated and Duplicates are
// counted in the store at the end of the run, not from the client's bookkeeping.
type Run struct {
	Table     string `json:"table"`
	Order     string `json:"order"`
	KeyPolicy string `json:"key_policy"`
	Seed      uint64 `json:"seed"`

	// Intended is the number of tabs the client set out to create.
	Intended int `json:"intended"`
	// CallsSent counts create_note_tab calls, resends included; the
	// list_note_tabs calls the client makes are in Lists.
	CallsSent int `json:"calls_sent"`
	// Lists counts the client's list_note_tabs calls.
	Lists int `json:"lists"`
	// Commits counts the calls that created a tab, whether or not their reply
	// arrived; Replays the calls answered with a stored first result.
	Commits int `json:"commits"`
	Replays int `json:"replays"`
	// Conflicts counts version_conflict replies.
	Conflicts int `json:"conflicts"`
	// RepliesLost counts successful replies (commits and replays) the client
	// never received.
	RepliesLost int `json:"replies_lost"`

	// TabsCreated is the number of Sheet tabs in the Note at the end.
	TabsCreated int `json:"tabs_created"`
	// Duplicates is TabsCreated minus Intended.
	Duplicates int `json:"duplicates"`
	// Missing counts tabs the client believes it created (from a reply it
	// received) that do not exist in the Note. Anything but 0 is a bug.
	Missing int `json:"missing"`
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
	// Stopped says why the run ended before the client was done, "" when it
	// ran to the end (see RaceRun.Stopped).
	Stopped string `json:"stopped"`
	// SetupFailed says why the run could not be set up (its document not
	// made, a session not opened: the server's own words), "" when it was;
	// such a run measured nothing, and the seeds beside it ran all the same.
	SetupFailed string `json:"setup_failed,omitempty"`
}

// EndedEarly implements Ender.
func (r Run) EndedEarly() string { return cmp.Or(r.Stopped, r.SetupFailed) }

// Row is one row of a create table: the figures of one server order and
// client key policy, one entry per seed in seed order.
type Row struct {
	Table       string `json:"table"`
	Order       string `json:"order"`
	KeyPolicy   string `json:"key_policy"`
	CallsSent   []int  `json:"calls_sent"`
	TabsCreated []int  `json:"tabs_created"`
	Duplicates  []int  `json:"duplicates"`
	// Errors counts each seed's calls that ended in a server error, Info
	// those of them that were outcomes nobody knows; Faults each seed's
	// faults (--nemesis).
	Errors []int `json:"errors"`
	Info   []int `json:"info"`
	Faults []int `json:"faults"`
}

// Summarize groups runs into rows: one row per distinct (table, order, key
// policy), in order of first appearance, each holding its runs' figures in the order
// of seeds. Every row must have exactly one run per seed; anything else is an error.
func Summarize(seeds []uint64, runs []Run) ([]Row, error) {
	var rows []Row
	type rowKey struct{ table, order, policy string }
	var keys []rowKey
	byKey := map[rowKey][]*Run{}
	for i := range runs {
		r := &runs[i]
		k := rowKey{r.Table, r.Order, r.KeyPolicy}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	for _, k := range keys {
		row := Row{Table: k.table, Order: k.order, KeyPolicy: k.policy}
		for _, seed := range seeds {
			i := slices.IndexFunc(byKey[k], func(r *Run) bool { return r.Seed == seed })
			if i < 0 {
				return nil, fmt.Errorf("create: table %s, %s, %s: no run for seed %d", k.table, k.order, k.policy, seed)
			}
			r := byKey[k][i]
			row.CallsSent = append(row.CallsSent, r.CallsSent)
			row.TabsCreated = append(row.TabsCreated, r.TabsCreated)
			row.Duplicates = append(row.Duplicates, r.Duplicates)
			row.Errors = append(row.Errors, r.Errors)
			row.Info = append(row.Info, r.Info)
			row.Faults = append(row.Faults, r.Faults)
		}
		if n := len(byKey[k]); n != len(seeds) {
			return nil, fmt.Errorf("create: table %s, %s, %s: %d runs for %d seeds", k.table, k.order, k.policy, n, len(seeds))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// createFields reads CreateRows by the names published.json uses.
var createFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"table":      func(r Row) string { return r.Table },
		"order":      func(r Row) string { return r.Order },
		"key_policy": func(r Row) string { return r.KeyPolicy },
	},
	Figures: map[string]func(Row) results.Value{
		"calls_sent":   results.PerSeed(func(r Row) []int { return r.CallsSent }),
		"tabs_created": results.PerSeed(func(r Row) []int { return r.TabsCreated }),
		"duplicates":   results.PerSeed(func(r Row) []int { return r.Duplicates }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return createFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return createFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return createFields.Names() }
