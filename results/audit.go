package results

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/internal/plural"
)

// AuditExperiment is the experiment name an audit's JSON record carries, as
// every notesbench result names what made it.
const AuditExperiment = "audit"

// The anomalies of an audit, by the names --allow takes.
const (
	AnomalyLostUpdate       = "lost-update"
	AnomalyStaleWrite       = "stale-write"
	AnomalyUnversionedWrite = "unversioned-write"
	AnomalyDuplicate        = "duplicate"
	AnomalyLostAcknowledged = "lost-acknowledged"
	AnomalyUnreadable       = "unreadable"
	AnomalyStoreDestroyed   = "store-destroyed"
	AnomalyEmptyRead        = "empty-read"
	AnomalyAppliedTwice     = "applied-twice"
	AnomalyServerErrors     = "server-errors"
	AnomalyDeclaredNotKept  = "declared-not-kept"
)

// Anomaly is one row of an audit's matrix, declared once: the name --allow
// takes, the title the matrix shows, what its count counts, and what a
// server's maintainers can do about it (a report's "what would fix it").
type Anomaly struct {
	Name  string
	Title string
	About string
	Fix   string
}

// AnomalyOf returns the anomaly called name, and false when there is none.
func AnomalyOf(name string) (Anomaly, bool) {
	for _, a := range Anomalies {
		if a.Name == name {
			return a, true
		}
	}
	return Anomaly{}, false
}

// Anomalies are the rows of the matrix, in the order it lists them.
var Anomalies = []Anomaly{
	{AnomalyLostUpdate, "lost update",
		"acknowledged lines missing at the end although the client re-applied its line after each conflict (on a server without a version check: every line it lost)",
		"Check a version on every write: take the version the client read (expected_version), compare it with the document's current one in the same transaction as the write, and refuse a stale write, changing nothing and naming the current version, so that the client re-reads and applies its change again. A write of the whole document without that check replaces whatever was written since the read."},
	{AnomalyStaleWrite, "stale write accepted",
		"conform: the stale-version clause failed (a write with an old version was taken); check: writes that replaced content changed after the read they came from, with the client re-applying",
		"Refuse a write whose expected version is not the document's current one, in the same transaction as the write (a compare-and-set), with an error the client can tell from others (a conflict naming the current version)."},
	{AnomalyUnversionedWrite, "write without a version accepted",
		"conform: the no-expected_version clause failed (a write that sent no version was taken)",
		"Require the version on every write that replaces content: a write that sends none cannot be checked, and a client that forgets it overwrites silently."},
	{AnomalyDuplicate, "duplicate after a lost reply",
		"tabs or sources made twice although the client kept one key for them on every resend after a lost reply: create's same-key rows, sources under the normalized key (a fresh key, or one from the URL's spelling, is the client's: see what the client policy costs)",
		"Take an idempotency key on every call that creates, keep it with what it made in the same transaction, and answer a call with a key already seen with the first result: a client resends after a lost reply, and only the key tells the resend from a new item."},
	{AnomalyLostAcknowledged, "acknowledged write lost under kill -9",
		"acknowledged writes missing from the final state after the server was killed and restarted",
		"Acknowledge a write only once it is durable: write the new state to a temporary file, fsync it, rename it over the old one and fsync the folder, or commit it in a database; never truncate and rewrite the store in place."},
	{AnomalyUnreadable, "document unreadable after a fault",
		"runs whose document or database could not be read back whole after the faults",
		"Replace the store atomically (a temporary file renamed over the old one, or a database transaction), so that a process killed mid-write leaves the old state or the new, whole."},
	{AnomalyStoreDestroyed, "store destroyed or unreadable without a fault",
		"runs whose document could not be set up, or read back at the end, without any fault, in the server's own words (a store two writers left unparseable, a document that vanished); where every run's set-up failed the part itself failed",
		"Let one writer at a time change the store, or keep it in a store that does (a database with transactions): two processes that each read one file, change it and write it back interleave, and can leave it unparseable or drop each other's documents. A server that cannot start while another process holds its database should wait for it."},
	{AnomalyEmptyRead, "read returned an emptied document",
		"reads (check: empty-reads) that returned an empty document after a line of it had been acknowledged: a server that truncates its file before it writes it, or lost its store",
		"Never truncate a file a reader may read: write the new content to a temporary file and rename it over the old one, so that a read sees the old text or the new, never an empty one."},
	{AnomalyAppliedTwice, "write applied twice",
		"lines the final state holds twice although their write was made once, its resends carrying one key: a resend after a kill (crash) or a lost reply applied again",
		"Take an idempotency key on writes and answer a resend with the same key with the first result: under MCP 2026-07-28 a client re-issues a request lost with a broken stream as a new request with a new id, and a stdio client may resend to a fresh process, so the key is the only way a server can tell a resend from a new write."},
	{AnomalyDeclaredNotKept, "declared but not kept",
		"lines that contradict a hint the server declares of its write tool (MCP tool annotations): applied twice by a repeat of a tool declaring idempotentHint: true (the nemeses, crash), or kept in the final text though written through a tool declaring readOnlyHint: true (race)",
		"Declare idempotentHint: true only on a tool whose repeat with the same arguments changes nothing, and readOnlyHint: true only on one that changes nothing: a client may resend an idempotent call on its own after a lost reply, and skip asking before a read-only one. Make the tool keep its hint (an idempotency key makes a resend a replay), or declare it false."},
	{AnomalyServerErrors, "calls that ended in server errors",
		"calls answered with a refusal other than a version conflict, or whose outcome nobody knows (a timeout, a dead server, an unreadable reply)",
		"Wait for the store rather than failing a call (SQLite: a busy_timeout, or one connection that queues the writes), and answer a refusal with a kind the client can act on (a conflict, a document not found, an invalid argument) rather than an internal error."},
}

// AnomalyNames returns the names of the anomalies, in order.
func AnomalyNames() []string {
	out := make([]string, len(Anomalies))
	for i, a := range Anomalies {
		out[i] = a.Name
	}
	return out
}

// ParseAllow parses a comma-separated list of anomaly names, as --allow
// takes it: each name once; "" is none.
func ParseAllow(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		name := strings.TrimSpace(item)
		if _, ok := AnomalyOf(name); !ok {
			return nil, fmt.Errorf("unknown anomaly %q (want %s)", name, strings.Join(AnomalyNames(), ", "))
		}
		if slices.Contains(out, name) {
			return nil, fmt.Errorf("%q is listed twice", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// AuditCell is what one mode found of one anomaly: a count, or why the mode
// did not run. A mode that does not measure an anomaly has no cell in its
// row.
type AuditCell struct {
	Mode string `json:"mode"`
	// Count is what the mode found; nil when it did not run or could not
	// judge, as NotRun says. A count is never made up: nil is not 0.
	Count *int `json:"count"`
	// Of is what the count is out of (lines meant, writes judged, clauses),
	// 0 when it is not a share of anything.
	Of int `json:"of,omitempty"`
	// Unit names what Count and Of count, plural ("lines", "clauses"; the
	// audit's units): a count of one unit is never added to a count of
	// another.
	Unit string `json:"unit"`
	// Source says what was counted, in a few words.
	Source string `json:"source"`
	// NotRun says why there is no count.
	NotRun string `json:"not_run,omitempty"`
	// Note is what a reader needs beside the count to weigh it: that most
	// writes were refused, so that few were there to lose.
	Note string `json:"note,omitempty"`
	// Proof shows one instance of a count above 0: the operations of the
	// kept history that show it, and the command that replays its run.
	Proof *AuditProof `json:"proof,omitempty"`
}

// AuditProof is one instance of an anomaly an audit counted, as Elle and
// Jepsen give one: the smallest set of operations of a history the audit
// kept that shows it (CheckProof: who read what, which write replaced it,
// which acknowledged line vanished), the faults that bear on them, and the one
// command that replays the run. A count that no history shows (a server's
// refusal to set up a run) has its words in Says and no operations.
type AuditProof struct {
	CheckProof
	// History is the file the operations are in, relative to the audit's
	// folder (--out): histories/race.jsonl.
	History string `json:"history,omitempty"`
	// Replay runs the proof's run again: its experiment, its seed, its
	// mode, with its history recorded.
	Replay string `json:"replay"`
}

// Counted returns a cell of mode with count n of of, in unit, counted as
// source says.
func Counted(mode, source, unit string, n, of int) AuditCell {
	return AuditCell{Mode: mode, Count: &n, Of: of, Unit: unit, Source: source}
}

// AuditTotal is a row's count in one unit, over the modes that counted in
// it.
type AuditTotal struct {
	Unit  string `json:"unit"`
	Count int    `json:"count"`
}

// NotRunCell returns a cell of mode that has no count, and why.
func NotRunCell(mode, source, why string) AuditCell {
	return AuditCell{Mode: mode, Source: source, NotRun: why}
}

// Mark is an anomaly's verdict in an audit.
type Mark string

// The marks.
const (
	// MarkOK: every mode that measures the anomaly ran, or some did, and
	// none found it.
	MarkOK Mark = "ok"
	// MarkFail: a mode found it, and --allow does not name it.
	MarkFail Mark = "fail"
	// MarkAllowed: a mode found it, and --allow names it.
	MarkAllowed Mark = "allowed"
	// MarkNotRun: no mode that measures it ran.
	MarkNotRun Mark = "not run"
)

// AuditRow is one anomaly's row of the matrix: its counts over the modes
// that ran, one total per unit (none when no mode ran: never a 0), its
// mark and a cell per mode that measures it. Counts of different modes may
// count different things (clauses, lines, writes): each cell says its
// unit, and counts of different units are never summed.
type AuditRow struct {
	Anomaly string       `json:"anomaly"`
	Title   string       `json:"title"`
	Totals  []AuditTotal `json:"totals"`
	Mark    Mark         `json:"mark"`
	Cells   []AuditCell  `json:"cells"`
}

// Found reports whether any mode of the row counted the anomaly.
func (r AuditRow) Found() bool {
	return slices.ContainsFunc(r.Totals, func(t AuditTotal) bool { return t.Count > 0 })
}

// Cell returns the row's cell of mode, and false when the mode does not
// measure the anomaly.
func (r AuditRow) Cell(mode string) (AuditCell, bool) {
	i := slices.IndexFunc(r.Cells, func(c AuditCell) bool { return c.Mode == mode })
	if i < 0 {
		return AuditCell{}, false
	}
	return r.Cells[i], true
}

// ClientCost is what a client policy cost in one mode: losses or
// duplicates that are the client's doing, not the server's (refresh
// resending its old text, a fresh key on every resend, a key made from
// the URL as written).
type ClientCost struct {
	Mode   string `json:"mode"`
	Policy string `json:"policy"`
	What   string `json:"what"`
	Count  int    `json:"count"`
	Of     int    `json:"of,omitempty"`
}

// AuditSubject is what was audited: the target, the profile its tools are
// mapped through and what the audit found of it before it ran anything.
type AuditSubject struct {
	Target  string `json:"target"`
	Profile string `json:"profile"`
	// Server names the server and its version, as its profile or the server
	// itself says; "" when neither does.
	Server   string `json:"server"`
	Describe string `json:"describe"`
	// WriteStyle is how a write states its change: the whole text, a patch,
	// an append.
	WriteStyle string `json:"write_style"`
	// Guard is the version scope the server serves (none, note, tab), ""
	// when it does not say.
	Guard         string `json:"guard"`
	VersionFormat string `json:"version_format"`
	// VersionCheck and Key say whether a write sends a version the server
	// checks and an idempotency key.
	VersionCheck bool `json:"version_check"`
	Key          bool `json:"key"`
	// Documents says how the runs' documents are laid out on the server:
	// one per run, in which store, how many at once, and why that matters
	// to what the audit counts.
	Documents string `json:"documents,omitempty"`
}

// AuditPart is one run the audit made: an experiment, conform, the checks
// of a history or a fault, with the command that makes it again, and its
// own record.
type AuditPart struct {
	Name string `json:"name"`
	// Command is the command line that runs it alone, notesbench first.
	Command []string `json:"command"`
	// NotRun says why the part did not run; Error, why it ended before it
	// was done.
	NotRun string `json:"not_run,omitempty"`
	Error  string `json:"error,omitempty"`
	// Result is the part's own record, as its command's --format json
	// writes it.
	Result  any     `json:"result,omitempty"`
	Seconds float64 `json:"seconds"`
}

// AuditPlot is a bar chart's data: one series per mode or key policy, one
// bar per run.
type AuditPlot struct {
	Name   string       `json:"name"`
	Title  string       `json:"title"`
	YLabel string       `json:"y_label"`
	Runs   []string     `json:"runs"`
	Series []PlotSeries `json:"series"`
}

// PlotSeries is one series of a plot: a value per run of the plot.
type PlotSeries struct {
	Label  string    `json:"label"`
	Values []float64 `json:"values"`
}

// Audit is the record of one audit: what was audited, at what budget, the
// matrix of anomalies by the modes that found them, what the client policy
// cost apart from it, the parts that ran and the verdict. Its JSON form is
// what --format json and --out write, and what --baseline reads.
type Audit struct {
	Experiment string       `json:"experiment"`
	Subject    AuditSubject `json:"subject"`
	Budget     string       `json:"budget"`
	// Modes are the matrix's columns, in order.
	Modes       []string     `json:"modes"`
	Matrix      []AuditRow   `json:"matrix"`
	ClientCosts []ClientCost `json:"client_costs"`
	// Allowed are the anomalies --allow names; Failed the anomalies found
	// and not allowed; Errors the parts that ended in an error.
	Allowed []string `json:"allowed"`
	Failed  []string `json:"failed"`
	Errors  []string `json:"errors"`
	// Baseline names the baseline compared with, and Regressions the
	// counts that got worse than its.
	Baseline    string      `json:"baseline,omitempty"`
	Regressions []string    `json:"regressions"`
	Parts       []AuditPart `json:"parts"`
	Plots       []AuditPlot `json:"plots"`
	Warnings    []string    `json:"warnings"`
	// Unfinished names the parts that were not judged, each with why: the
	// audit was interrupted, or the part ran out of its time. An audit
	// with any is incomplete: what it holds was measured, what it lacks
	// was not.
	Unfinished []string `json:"unfinished,omitempty"`
	Seconds    float64  `json:"seconds"`
	Version    string   `json:"notesbench_version"`
}

// Passed reports whether the audit passes: no anomaly found that is not
// allowed, no part ended in an error, no count worse than the baseline's.
// An audit that passed may still be incomplete (Finished).
func (a *Audit) Passed() bool {
	return len(a.Failed) == 0 && len(a.Errors) == 0 && len(a.Regressions) == 0
}

// Finished reports whether every part of the audit was judged.
func (a *Audit) Finished() bool { return len(a.Unfinished) == 0 }

// Row returns the matrix's row of the anomaly called name.
func (a *Audit) Row(name string) (AuditRow, bool) {
	i := slices.IndexFunc(a.Matrix, func(r AuditRow) bool { return r.Anomaly == name })
	if i < 0 {
		return AuditRow{}, false
	}
	return a.Matrix[i], true
}

// Judge builds the matrix from cells (each anomaly's, by name; an anomaly
// without cells gets a row that says no mode measures it), marks each row
// against allow, and fills Allowed and Failed. Its columns are modes.
func (a *Audit) Judge(modes []string, cells map[string][]AuditCell, allow []string) {
	a.Modes = slices.Clone(modes)
	a.Allowed = append([]string{}, allow...)
	a.Failed = []string{}
	a.Matrix = nil
	for _, an := range Anomalies {
		row := AuditRow{Anomaly: an.Name, Title: an.Title, Totals: []AuditTotal{}, Cells: append([]AuditCell{}, cells[an.Name]...)}
		for _, c := range row.Cells {
			if c.Count == nil {
				continue
			}
			i := slices.IndexFunc(row.Totals, func(t AuditTotal) bool { return t.Unit == c.Unit })
			if i < 0 {
				row.Totals = append(row.Totals, AuditTotal{Unit: c.Unit})
				i = len(row.Totals) - 1
			}
			row.Totals[i].Count += *c.Count
		}
		switch {
		case len(row.Totals) == 0:
			row.Mark = MarkNotRun
		case !row.Found():
			row.Mark = MarkOK
		case slices.Contains(allow, an.Name):
			row.Mark = MarkAllowed
		default:
			row.Mark = MarkFail
			a.Failed = append(a.Failed, an.Name)
		}
		a.Matrix = append(a.Matrix, row)
	}
}

// Complete returns a with its nil lists made empty, so that its JSON holds
// every key with a list, never null.
func (a Audit) Complete() Audit {
	for _, l := range []*[]string{&a.Modes, &a.Allowed, &a.Failed, &a.Errors, &a.Regressions, &a.Warnings} {
		if *l == nil {
			*l = []string{}
		}
	}
	if a.ClientCosts == nil {
		a.ClientCosts = []ClientCost{}
	}
	if a.Parts == nil {
		a.Parts = []AuditPart{}
	}
	if a.Plots == nil {
		a.Plots = []AuditPlot{}
	}
	return a
}

// ReadAudit reads the audit's JSON record (a baseline) the file at path
// holds, named by path in its errors.
func ReadAudit(path string) (*Audit, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Audit
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s is not a notesbench JSON result: %v", path, err)
	}
	if a.Experiment != AuditExperiment {
		what := a.Experiment
		if what == "" {
			what = "no experiment"
		}
		return nil, fmt.Errorf("%s holds %q, not an audit", path, what)
	}
	if len(a.Matrix) == 0 {
		return nil, fmt.Errorf("%s holds an audit without a matrix", path)
	}
	return &a, nil
}

// Regressions returns each count of now that is worse than the baseline's
// (base): higher, or not counted now where base counted it, one line each
// ("lost update, race note/reapply: baseline 0, now 3"). A count base did
// not have cannot be worse than it.
func Regressions(base, now *Audit) []string {
	out := []string{}
	for _, b := range base.Matrix {
		row, ok := now.Row(b.Anomaly)
		for _, bc := range b.Cells {
			if bc.Count == nil {
				continue
			}
			c, found := row.Cell(bc.Mode)
			switch {
			case !ok || !found:
				out = append(out, fmt.Sprintf("%s, %s: baseline %s, now not measured", b.Title, bc.Mode, plural.Int(int64(*bc.Count))))
			case c.Count == nil:
				out = append(out, fmt.Sprintf("%s, %s: baseline %s, now not run (%s)", b.Title, bc.Mode, plural.Int(int64(*bc.Count)), c.NotRun))
			case *c.Count > *bc.Count:
				out = append(out, fmt.Sprintf("%s, %s: baseline %s, now %s", b.Title, bc.Mode, plural.Int(int64(*bc.Count)), plural.Int(int64(*c.Count))))
			}
		}
	}
	return out
}
