package history

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/internal/jsonerr"
)

// History is one history file, read and checked line by line.
type History struct {
	// File is the name the history was read under, for messages.
	File   string
	Header Header
	// FormatVersion is the format of the history header: 1 or 2.
	FormatVersion int
	// Runs are in the order of their run headers.
	Runs []*Run
	// Cut says the history was cut short: it is of format 2 and does not end
	// with its end line (the process writing it was killed, or the file was
	// cut), or, in a merged history, a part before an end line lacks its own.
	// What it holds was read; nobody can say what it lacks. A history of
	// format 1 has no end line and is never cut.
	Cut bool
	// Lines is how many lines were read: all of them, or those before the
	// cut, when the cut fell in the middle of a line.
	Lines int
}

// Run is one run of a history: its header, its calls in file order, the
// faults injected into it and the final state of its Notes.
type Run struct {
	Header RunHeader
	Calls  []Call
	Faults []Fault
	Finals []Final
	// Line is the line of the run header, for messages.
	Line int
}

// InputError is a history that cannot be read: which file, which line, what is
// wrong with it. Line 0 means the file as a whole.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// MaxLine is the longest line a history may hold: far above the final
// state of any run of the bounded parameters (a Note of 20,000 lines is some
// 300 KB), far below what would strain a laptop's memory.
const MaxLine = 16 << 20

// ReadFile reads the history at path; see Read. The file must be a regular
// file: a device or a pipe may never end (a pipe is read as standard input,
// by the caller).
func ReadFile(ctx context.Context, path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: errors.Unwrap(err).Error()}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &InputError{File: path, Msg: err.Error()}
	}
	if !st.Mode().IsRegular() {
		return nil, &InputError{File: path, Msg: "not a regular file: a history is a file (or - for standard input)"}
	}
	return Read(ctx, f, path)
}

// Read reads a history from r; name is the file name messages give. It stops
// when ctx ends, between two reads of r, with ctx's error. It reads format 2
// and format 1, whose outcomes it maps to format 2's (conflict to fail of kind
// conflict, error to fail of its kind, unknown to info of its kind).
//
// A history of format 2 that does not end with its end line was cut short:
// Read returns what it holds with Cut set, dropping a last line cut in the
// middle. A notesbench JSON result (an audit's, an experiment's) is an
// *InputError saying so, read no further than its first member. Every other
// problem is an *InputError naming the line: an empty file, a line longer than MaxLine, a line that is not a JSON object of a
// known kind, a truncated last line of format 1, a format_version other than
// 1 and 2, a missing history header, a second history header (two histories
// run together), a run declared twice or a record of a run not declared
// before it, a call or a fault whose fields contradict each other, a second
// final state of one Note, an end line that counts more than the lines before
// it hold.
func Read(ctx context.Context, r io.Reader, name string) (*History, error) {
	h := &History{File: name}
	runs := map[string]*Run{}
	finals := map[[2]string]bool{}
	br := bufio.NewReaderSize(ctxReader{ctx, r}, 1<<16)
	fail := func(line int, format string, args ...any) error {
		return &InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	// firstFail is fail for what is wrong with the first line, b: unless the
	// file is a notesbench result, which is said instead.
	var b []byte
	firstFail := func(line int, format string, args ...any) error {
		if line == 1 {
			if experiment, ok := resultHead(bytes.Clone(b), br); ok {
				return &InputError{File: name, Msg: fmt.Sprintf("a notesbench result (%s), not a history: check reads the files --history writes", experiment)}
			}
		}
		return fail(line, format, args...)
	}
	var (
		line int
		// seen counts the runs, calls and faults since the last end line;
		// open says those lines include one of format 2, which an end line
		// must close.
		seen End
		open bool
		// format is the format of the last line read.
		format int
	)
	for {
		var err error
		b, err = readLine(br)
		if err == io.EOF && len(b) == 0 {
			break
		}
		if err == io.EOF && format == 2 && !json.Valid(b) {
			// Format 2 ends with its end line: a file that stops in the
			// middle of a line was cut short there.
			open = true
			break
		}
		line++
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == errLongLine:
			return nil, fail(line, "a line longer than %d MiB: not a history", MaxLine>>20)
		case err == io.EOF && format != 2:
			return nil, firstFail(line, "truncated record: the file ends in the middle of a line")
		case err != nil && err != io.EOF:
			return nil, &InputError{File: name, Line: line, Msg: err.Error()}
		}
		h.Lines = line
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, fail(line, "empty line")
		}
		// One decoding per line: the fields of every kind at once.
		var l anyLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, firstFail(line, "malformed record: %s", jsonerr.Describe(err))
		}
		if l.FormatVersion == nil {
			return nil, firstFail(line, "format_version missing")
		}
		format = *l.FormatVersion
		if format != 1 && format != FormatVersion {
			return nil, fail(line, "format_version %d is not supported (this notesbench reads 1 and %d)", format, FormatVersion)
		}
		if line == 1 && l.Kind != KindHistory {
			return nil, fail(line, "not a history: the first line must be the history header, not %q", l.Kind)
		}
		if format == 2 && l.Kind != KindEnd {
			open = true
		}
		switch l.Kind {
		case KindHistory:
			if line != 1 {
				return nil, fail(line, "a second history header: two histories are mixed in one file")
			}
			h.Header = Header{Experiment: l.Experiment, Command: l.Command}
			h.FormatVersion = format
			if h.Header.Experiment == "" {
				return nil, fail(line, "history header: experiment missing")
			}
		case KindRun:
			rh := RunHeader{Run: l.Run, Seed: l.Seed, Clock: l.Clock, Variant: l.Variant, Policy: l.Policy, ServerTools: l.ServerTools}
			if err := checkRunHeader(rh); err != nil {
				return nil, fail(line, "run header: %v", err)
			}
			if prev, ok := runs[rh.Run]; ok {
				return nil, fail(line, "run %q is declared again (first on line %d): runs of different histories are mixed", rh.Run, prev.Line)
			}
			run := &Run{Header: rh, Line: line}
			runs[rh.Run] = run
			h.Runs = append(h.Runs, run)
			seen.Runs++
		case KindCall:
			c := l.Call
			run, ok := runs[c.Run]
			if !ok {
				return nil, fail(line, "call of run %q, which no run header declared before it", c.Run)
			}
			if format == 1 {
				if err := fromFormat1(&c); err != nil {
					return nil, fail(line, "call: %v", err)
				}
			} else if err := checkOutcome(c); err != nil {
				return nil, fail(line, "call: %v", err)
			}
			if err := checkCall(c); err != nil {
				return nil, fail(line, "call: %v", err)
			}
			run.Calls = append(run.Calls, c)
			seen.Calls++
		case KindFault:
			f := Fault{Run: l.Run, Kind: l.Fault, Start: l.Start, End: l.EndNS, PID: l.PID, Detail: l.Detail}
			run, ok := runs[f.Run]
			if !ok {
				return nil, fail(line, "fault in run %q, which no run header declared before it", f.Run)
			}
			if err := checkFault(f); err != nil {
				return nil, fail(line, "fault: %v", err)
			}
			run.Faults = append(run.Faults, f)
			seen.Faults++
		case KindFinal:
			f := Final{Run: l.Run, Note: l.Note, Version: l.Version, Tabs: l.Tabs, Text: l.Text, Sheets: l.Sheets, Sources: l.Sources}
			run, ok := runs[f.Run]
			if !ok {
				return nil, fail(line, "final state of run %q, which no run header declared before it", f.Run)
			}
			if f.Note == "" {
				return nil, fail(line, "final state: note missing")
			}
			if finals[[2]string{f.Run, f.Note}] {
				return nil, fail(line, "a second final state of note %q in run %q", f.Note, f.Run)
			}
			finals[[2]string{f.Run, f.Note}] = true
			run.Finals = append(run.Finals, f)
		case KindEnd:
			end := End{Runs: l.Runs, Calls: l.Calls, Faults: l.Faults}
			if end.Runs > seen.Runs || end.Calls > seen.Calls || end.Faults > seen.Faults {
				return nil, fail(line, "end: it counts %s, the lines before it hold %s: lines are missing", end, seen)
			}
			// An end line that counts less closes a merged history's part
			// whose own end line is missing: that part was cut short.
			h.Cut = h.Cut || end != seen
			seen, open = End{}, false
		default:
			return nil, fail(line, "unknown kind %q (want history, run, call, fault, final or end)", l.Kind)
		}
	}
	if line == 0 {
		return nil, fail(1, "empty file: no history header")
	}
	h.Cut = h.Cut || open
	return h, nil
}

// resultHead returns the experiment of a notesbench JSON result that starts
// with first, its first line, and goes on in r: a JSON object whose first
// member is "experiment", a string, as every result's is, indented or not.
// It reads no more of r than a few KiB, and only what it needs.
func resultHead(first []byte, r io.Reader) (string, bool) {
	dec := json.NewDecoder(io.MultiReader(bytes.NewReader(first), strings.NewReader("\n"), io.LimitReader(r, 4<<10)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	if t, err := dec.Token(); err != nil || t != "experiment" {
		return "", false
	}
	t, err := dec.Token()
	experiment, ok := t.(string)
	return experiment, err == nil && ok && experiment != ""
}

// String is what an End counts: "2 runs, 340 calls and 0 faults".
func (e End) String() string {
	return fmt.Sprintf("%d runs, %d calls and %d faults", e.Runs, e.Calls, e.Faults)
}

// ctxReader is a reader that stops when its ctx ends: between two reads of
// a file, so that a signal stops a long parse at once.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

var errLongLine = errors.New("line too long")

// readLine returns the next line without its newline: io.EOF with the
// bytes of a last line that has none, errLongLine for a line longer than
// MaxLine, read no further than that.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine+1 {
			return nil, errLongLine
		}
		switch err {
		case nil:
			if line == nil {
				return chunk[:len(chunk)-1], nil // valid until the next read, which is after its decoding
			}
			return append(line, chunk[:len(chunk)-1]...), nil
		case bufio.ErrBufferFull:
			line = append(line, chunk...)
		default:
			return append(line, chunk...), err
		}
	}
}

// envelope is what every line holds.
type envelope struct {
	FormatVersion *int `json:"format_version"`
	Kind          Kind `json:"kind"`
}

// anyLine holds the fields of every kind of line, so that a line is decoded
// once: a Call's (run, note and version serve the run header and the final
// state too) and those of the other kinds.
type anyLine struct {
	envelope
	Call
	// A Fault's fields beside those it shares with a Call (run).
	Fault  string `json:"fault"`
	Start  int64  `json:"start_ns"`
	EndNS  int64  `json:"end_ns"`
	PID    int    `json:"pid"`
	Detail string `json:"detail"`
	// An End's.
	Runs        int                         `json:"runs"`
	Calls       int                         `json:"calls"`
	Faults      int                         `json:"faults"`
	Experiment  string                      `json:"experiment"`
	Command     string                      `json:"command"`
	Seed        uint64                      `json:"seed"`
	Clock       string                      `json:"clock"`
	Variant     contract.Variant            `json:"variant"`
	Policy      string                      `json:"policy"`
	ServerTools map[string]string           `json:"server_tools"`
	Tabs        []FinalTab                  `json:"tabs"`
	Text        string                      `json:"text"`
	Sheets      map[string][]contract.Sheet `json:"sheets"`
	Sources     []contract.Attachment       `json:"sources"`
}

func checkRunHeader(h RunHeader) error {
	switch {
	case h.Run == "":
		return errors.New("run: missing")
	case h.Variant.Guard == "":
		return errors.New("variant.guard: missing")
	case h.Variant.VersionFormat == "":
		return errors.New("variant.version_format: missing")
	case h.Variant.Order == "":
		return errors.New("variant.order: missing")
	}
	if err := h.Variant.ValidateServed(); err != nil {
		return fmt.Errorf("variant: %w", err)
	}
	return nil
}

// tools are the tools a call may name: the seven, and the person's actions
// (ext.PersonTools), which a served history records.
var tools = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range contract.Tools() {
		m[t.Name] = true
	}
	for _, t := range ext.PersonTools {
		m[t] = true
	}
	return m
}()

// fromFormat1 maps a call's format-1 outcome to format 2's: conflict is a
// fail of kind conflict, error a fail of its kind, unknown an info of its
// kind (failure when it names none).
func fromFormat1(c *Call) error {
	switch c.Outcome {
	case contract.OK:
	case "conflict":
		c.Outcome, c.ErrorKind = contract.Fail, contract.KindConflict
	case "error":
		if c.ErrorKind == "" {
			return errors.New("error_kind: missing on an error")
		}
		c.Outcome = contract.Fail
	case "unknown":
		c.Outcome = contract.Info
		if c.ErrorKind == "" {
			c.ErrorKind = contract.KindFailure
		}
	default:
		return fmt.Errorf("outcome: %q is not ok, conflict, error or unknown", c.Outcome)
	}
	return nil
}

// checkOutcome checks a format-2 call's outcome against its kind. Info kinds
// are open: a kind this notesbench does not know is kept.
func checkOutcome(c Call) error {
	switch {
	case c.Outcome != contract.OK && c.Outcome != contract.Fail && c.Outcome != contract.Info:
		return fmt.Errorf("outcome: %q is not ok, fail or info", c.Outcome)
	case c.Outcome == contract.OK && c.ErrorKind != "":
		return fmt.Errorf("error_kind: %q on an ok call", c.ErrorKind)
	case c.Outcome != contract.OK && c.ErrorKind == "":
		return fmt.Errorf("error_kind: missing on a call whose outcome is %s", c.Outcome)
	case c.Outcome == contract.Fail && !contract.IsFailKind(c.ErrorKind):
		return fmt.Errorf("error_kind: %q is no kind of fail (want conflict, not_found, invalid_argument, schema, refused or gone)", c.ErrorKind)
	case c.Outcome == contract.Info && contract.IsFailKind(c.ErrorKind):
		return fmt.Errorf("error_kind: %s is a kind of fail, not of info: the call definitely did not happen", c.ErrorKind)
	}
	return nil
}

// versionless are the tools whose successful calls may name no version: a
// listing of attachments, and a create or a source whose server's reply
// gives none (a profile need not extract one; the call is judged by the tab
// or source it made). A create or a source may then be sent with no expected
// version, there being none to send.
var versionless = map[string]bool{
	contract.ToolListNoteAttachments: true,
	contract.ToolCreateNoteTab:       true,
	contract.ToolAddNoteSource:       true,
}

// checkCall checks the fields of a call, its outcome in format 2's terms.
func checkCall(c Call) error {
	switch {
	case c.Editor == "":
		return errors.New("editor: missing")
	case !tools[c.Tool]:
		return fmt.Errorf("tool: unknown tool %q", c.Tool)
	case c.Note == "":
		return errors.New("note: missing")
	case c.Return < c.Invoke:
		return fmt.Errorf("return_ns: %d is before invoke_ns %d", c.Return, c.Invoke)
	case c.IsWrite() && c.ExpectedVersion == "" && !versionless[c.Tool]:
		return errors.New("expected_version: missing on a write")
	case c.IsWrite() && c.Key == "":
		return errors.New("idempotency_key: missing on a write")
	case c.IsConflict() && !c.IsWrite():
		return fmt.Errorf("outcome: a %s call cannot conflict", c.Tool)
	case c.Outcome == contract.OK && c.Version == "" && !versionless[c.Tool] && !c.IsPersonAction():
		return errors.New("version: missing on a successful call")
	case c.Outcome == contract.OK && c.Tool == contract.ToolCreateNoteTab && c.TabID == "":
		return errors.New("tab_id: missing on a successful create_note_tab")
	case c.Outcome == contract.OK && c.Tool == contract.ToolAddNoteSource && c.SourceID == "":
		return errors.New("source_id: missing on a successful add_note_source")
	case (c.Tool == contract.ToolEditNoteTab || c.Tool == contract.ToolReadNoteTab) && c.Tab == "":
		return errors.New("tab: missing")
	}
	return nil
}

func checkFault(f Fault) error {
	switch {
	case f.Kind == "":
		return errors.New("fault: missing (the kind of fault: kill, pause, lose-replies, duplicate)")
	case f.End < f.Start:
		return fmt.Errorf("end_ns: %d is before start_ns %d", f.End, f.Start)
	case f.PID < 0:
		return fmt.Errorf("pid: %d is not a process", f.PID)
	}
	return nil
}
