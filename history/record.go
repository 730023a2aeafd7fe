package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// FormatVersion is the version of the history format this package writes.
// The reader reads it and format 1 (before the three outcomes and the end
// line), and refuses any other: a field whose meaning changes gets a new
// version, while new optional fields may be added without one.
const FormatVersion = 2

// Kind is what a line of a history holds.
type Kind string

// The kinds of line.
const (
	// KindHistory is the first line of a file: the Header.
	KindHistory Kind = "history"
	// KindRun declares a run: a RunHeader. It comes before the run's other lines.
	KindRun Kind = "run"
	// KindCall is one tool call: a Call.
	KindCall Kind = "call"
	// KindFault is one fault injected into a run: a Fault.
	KindFault Kind = "fault"
	// KindFinal is the final state of one Note of a run: a Final.
	KindFinal Kind = "final"
	// KindEnd is the last line of a file the Writer wrote whole: an End. A
	// history of format 2 without it was cut short.
	KindEnd Kind = "end"
)

// Header is the first line of a history file.
type Header struct {
	// Experiment names what made the runs: "race", "create", "crash".
	Experiment string `json:"experiment"`
	// Command says how the history was made, for a reader: a command line.
	Command string `json:"command,omitempty"`
}

// RunHeader declares one run: everything check needs to know about it beside its
// calls. Variant is the contract the run was served; its fields are always
// set (the Writer fills defaults in).
type RunHeader struct {
	// Run is the run's name, unique in the file ("race-note-refresh-seed3").
	Run     string           `json:"run"`
	Seed    uint64           `json:"seed"`
	Clock   string           `json:"clock,omitempty"`
	Variant contract.Variant `json:"variant"`
	// Policy describes the clients' behaviour in the experiment's words: the
	// conflict policy (reapply, refresh) or the key policy (uuid, same key on
	// retry). It is for readers: check judges the calls, not the policy.
	Policy string `json:"policy,omitempty"`
	// ServerTools names, for each of the contract's tools a profile mapped,
	// the server's own tool that stood for it; absent for the contract's
	// own tools.
	ServerTools map[string]string `json:"server_tools,omitempty"`
}

// Cell is where a sheet_set_range call starts writing.
type Cell struct {
	SheetID string `json:"sheet_id,omitempty"`
	Row     int    `json:"row"`
	Col     int    `json:"col"`
}

// Call is one tool call: who made it, the arguments that matter, when, and what
// the client learned. Versions are strings, whatever the version format.
type Call struct {
	Run     string `json:"run"`
	Editor  string `json:"editor"`
	Session int    `json:"session"`
	Tool    string `json:"tool"`

	Note            string `json:"note"`
	Tab             string `json:"tab,omitempty"`
	Operation       string `json:"operation,omitempty"`
	ExpectedVersion string `json:"expected_version,omitempty"`
	Key             string `json:"idempotency_key,omitempty"`
	// At is where a sheet_set_range call writes.
	At *Cell `json:"at,omitempty"`
	// TabType and Label are create_note_tab's; URL is add_note_source's.
	TabType string `json:"tab_type,omitempty"`
	Label   string `json:"label,omitempty"`
	URL     string `json:"url,omitempty"`
	// Intent is what the call means to add, unique in the run: a line of text,
	// the value of the one cell it sets, the identity of the tab or source it
	// creates. Empty: the caller did not say.
	Intent string `json:"intent,omitempty"`
	// BaseVersion is the version of the read the call's content was computed
	// from, when it differs from ExpectedVersion (the refresh policy).
	BaseVersion string `json:"base_version,omitempty"`
	// Digest is, for a read of a tab's text that ended ok, the digest of
	// the text it returned, and for a write of a tab's whole text
	// (replace_text), of the text it sent (TextDigest): check holds the
	// reads to the writes by it (empty-reads). Empty in histories made
	// before it was recorded.
	Digest string `json:"digest,omitempty"`

	// Invoke and Return are when the call was made and when its outcome was
	// known, in nanoseconds on the run's clock; within a run no two of these
	// times are equal, so they order the calls as the recorder saw them.
	Invoke int64 `json:"invoke_ns"`
	Return int64 `json:"return_ns"`

	// Outcome is what the client learned: contract.OK (Version is the new
	// version, a read's version for a read; Replayed says a write replayed
	// its key's first result), contract.Fail (the call definitely did not
	// happen) or contract.Info (it may have happened).
	Outcome  contract.Outcome `json:"outcome"`
	Version  string           `json:"version,omitempty"`
	Replayed bool             `json:"replayed,omitempty"`
	TabID    string           `json:"tab_id,omitempty"`
	SourceID string           `json:"source_id,omitempty"`
	// ErrorKind names the kind of a Fail or Info outcome (contract.KindOf:
	// conflict, not_found, reply_lost, timeout…), Error its message. A
	// conflict is a Fail of kind conflict whose Version is the current
	// version the reply reported: empty when the server's refusal named none.
	ErrorKind string `json:"error_kind,omitempty"`
	Error     string `json:"error,omitempty"`

	// The fields below are those of a served history (ExperimentServe),
	// which notesbench serve records on the server's side of the wire.

	// ClientVersion is the version the session's MCP clientInfo gave;
	// Editor is its name.
	ClientVersion string `json:"client_version,omitempty"`
	// Stateless says the call was a stateless request (MCP 2026-07-28),
	// which comes on no MCP session: its Session numbers the requests of
	// one clientInfo over one connection, which may be those of several
	// clients sharing the connection (a pool of one process, a proxy).
	Stateless bool `json:"stateless,omitempty"`
	// Position is where a person's move_tab put the tab.
	Position *int `json:"position,omitempty"`
	// Listed is the tab bar a successful list_note_tabs returned, in bar
	// order.
	Listed []FinalTab `json:"listed,omitempty"`
	// ReadVersion, Adds and Drops say what a write of a markdown tab's whole
	// text (replace_text, the person's set_text) did to the text its
	// session last saw of the tab: its last view, the latest successful
	// read_note_tab of the tab, or replace_text of it that committed, by
	// the same session, that returned before this call was made. ReadVersion
	// is that view's version, empty when the session had none (Adds then
	// hold every line of the text); Adds are the lines the write's text has
	// beyond the view's, Drops the lines of the view's it lacks, each line
	// as often as it is beyond (a multiset difference), blank lines left
	// out. The text the write sent is the view's, less Drops, plus Adds.
	ReadVersion string   `json:"read_version,omitempty"`
	Adds        []string `json:"adds,omitempty"`
	Drops       []string `json:"drops,omitempty"`
}

// IsConflict reports whether the call ended in a version conflict.
func (c Call) IsConflict() bool {
	return c.Outcome == contract.Fail && c.ErrorKind == contract.KindConflict
}

// IsWrite reports whether the call is one of the three write tools.
// EmptyDigest is the TextDigest of a text without a line: an empty document.
var EmptyDigest = TextDigest("")

// TextDigest is the digest of a tab's text as Call.Digest records it: of
// its lines that are not blank, so that two texts that differ only in
// blank lines (a trailing newline a server adds) have one digest.
func TextDigest(text string) string {
	h := sha256.New()
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) != "" {
			h.Write([]byte(strings.TrimRight(line, " \t\r")))
			h.Write([]byte{'\n'})
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func (c Call) IsWrite() bool {
	switch c.Tool {
	case contract.ToolEditNoteTab, contract.ToolCreateNoteTab, contract.ToolAddNoteSource:
		return true
	}
	return false
}

// IsPersonAction reports whether the call is one of the person's actions in
// the app (contract.Person, the extension tools ext.PersonTools): a write
// with no expected version and no key, which changes the version to one
// nobody is told.
func (c Call) IsPersonAction() bool {
	return slices.Contains(ext.PersonTools, c.Tool)
}

// EditsTab reports whether the call is a person's action on the content of
// one tab (its cells, its text), which under guard tab bumps that tab's
// version, rather than on the tab bar, which bumps the Note's.
func (c Call) EditsTab() bool {
	return c.Tool == ext.ToolSetCells || c.Tool == ext.ToolSetText
}

// Base returns the version the call's content was computed from: BaseVersion,
// or ExpectedVersion when that is empty.
func (c Call) Base() string {
	if c.BaseVersion != "" {
		return c.BaseVersion
	}
	return c.ExpectedVersion
}

// String describes the call in one line for a reader: "claude#1 edit_note_tab
// note-1/markdown expected 41 → ok 42", "… → conflict, current 43",
// "… → info (reply_lost)".
func (c Call) String() string {
	s := fmt.Sprintf("%s#%d %s %s", c.Editor, c.Session, c.Tool, c.Note)
	if c.Tab != "" {
		s += "/" + c.Tab
	}
	if c.Intent != "" {
		s += fmt.Sprintf(" adding %q", c.Intent)
	}
	if c.ExpectedVersion != "" {
		s += " expected " + c.ExpectedVersion
	}
	if c.BaseVersion != "" {
		s += " (content from " + c.BaseVersion + ")"
	}
	s += " → "
	switch {
	case c.Outcome == contract.OK:
		s += "ok"
		if c.Version != "" {
			s += " " + c.Version
		}
		if c.Replayed {
			s += " (replayed)"
		}
	case c.IsConflict() && c.Version != "":
		s += "conflict, current " + c.Version
	case c.IsConflict():
		s += "conflict (no current version named)"
	default:
		s += string(c.Outcome)
		if c.ErrorKind != "" {
			s += " (" + c.ErrorKind + ")"
		}
	}
	return s
}

// FinalTab is one tab of a Note's final tab bar.
type FinalTab struct {
	TabID string           `json:"tab_id"`
	Type  contract.TabType `json:"type"`
	Label string           `json:"label"`
}

// Final is the state of one Note at the end of a run, read back through the
// tools: its version and tab bar, the text of its markdown tab, the sheets of
// every sheet tab a recorded call edited, and its sources.
type Final struct {
	Run     string                      `json:"run"`
	Note    string                      `json:"note"`
	Version string                      `json:"version"`
	Tabs    []FinalTab                  `json:"tabs"`
	Text    string                      `json:"text"`
	Sheets  map[string][]contract.Sheet `json:"sheets,omitempty"`
	Sources []contract.Attachment       `json:"sources"`
}

// The kinds of fault a nemesis injects. Kind is a string: a reader keeps
// kinds it does not know.
const (
	// FaultKill: the server's process was killed (SIGKILL) and started again.
	FaultKill = "kill"
	// FaultPause: the server's process was stopped (SIGSTOP), then continued.
	FaultPause = "pause"
	// FaultLoseReplies: replies the server sent were dropped on the wire.
	FaultLoseReplies = "lose-replies"
	// FaultDuplicate: a call was sent twice at once.
	FaultDuplicate = "duplicate"
)

// Fault is one fault injected into a run: what, when on the run's clock
// (Start and End in nanoseconds, as a Call's times; End equals Start for a
// fault of one instant), which process it hit (PID, 0 when none) and what
// else its injector says of it.
type Fault struct {
	Run    string `json:"run"`
	Kind   string `json:"fault"`
	Start  int64  `json:"start_ns"`
	End    int64  `json:"end_ns"`
	PID    int    `json:"pid"`
	Detail string `json:"detail,omitempty"`
}

// String describes the fault for a reader: "kill at 1.20 s (pid 4711)".
func (f Fault) String() string {
	s := f.Kind + " at " + seconds(f.Start)
	if f.End > f.Start {
		s = f.Kind + " from " + seconds(f.Start) + " to " + seconds(f.End)
	}
	if f.PID != 0 {
		s += fmt.Sprintf(" (pid %d)", f.PID)
	}
	if f.Detail != "" {
		s += ": " + f.Detail
	}
	return s
}

// seconds writes nanoseconds on a run's clock as seconds: "1.20 s".
func seconds(ns int64) string {
	return fmt.Sprintf("%.2f s", float64(ns)/1e9)
}

// End is the last line of a history the Writer wrote whole: how many runs,
// calls and faults the lines before it (since the history header, or since
// the end line before it in a merged history) hold.
type End struct {
	Runs   int `json:"runs"`
	Calls  int `json:"calls"`
	Faults int `json:"faults"`
}
