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
	"github.com/notesbench/notesbench/internal/bounded"
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

// ReadAll reads the histories files name, in order: each a file (ReadFile)
// or standard input, stdin, for "-", which may be named once. A read of
// standard input, which may never end, is left behind when ctx ends, with
// ctx's error.
func ReadAll(ctx context.Context, stdin io.Reader, files []string) ([]*History, error) {
	var hs []*History
	stdinRead := false
	for _, file := range files {
		if file != "-" {
			h, err := ReadFile(ctx, file)
			if err != nil {
				return nil, err
			}
			hs = append(hs, h)
			continue
		}
		if stdinRead {
			return nil, errors.New("-: standard input is named twice")
		}
		stdinRead = true
		h, err := bounded.UnlessDone(ctx, func() (*History, error) { return Read(ctx, stdin, "standard input") })
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, nil
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
	rd := &reader{h: &History{File: name}, runs: map[string]*Run{}, finals: map[[2]string]bool{},
		br: bufio.NewReaderSize(ctxReader{ctx, r}, 1<<16)}
	for {
		var err error
		rd.b, err = readLine(rd.br)
		if err == io.EOF && len(rd.b) == 0 {
			break
		}
		if err == io.EOF && rd.format == 2 && !json.Valid(rd.b) {
			// Format 2 ends with its end line: a file that stops in the
			// middle of a line was cut short there.
			rd.open = true
			break
		}
		rd.line++
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == errLongLine:
			return nil, rd.fail("a line longer than %d MiB: not a history", MaxLine>>20)
		case err == io.EOF && rd.format != 2:
			return nil, rd.firstFail("truncated record: the file ends in the middle of a line")
		case err != nil && err != io.EOF:
			return nil, &InputError{File: name, Line: rd.line, Msg: err.Error()}
		}
		rd.h.Lines = rd.line
		if err := rd.record(); err != nil {
			return nil, err
		}
	}
	if rd.line == 0 {
		return nil, &InputError{File: name, Line: 1, Msg: "empty file: no history header"}
	}
	rd.h.Cut = rd.h.Cut || rd.open
	return rd.h, nil
}

// reader is a history being read: what it holds so far, and where it is.
type reader struct {
	h      *History
	runs   map[string]*Run
	finals map[[2]string]bool
	br     *bufio.Reader
	// b is the line being read, line its number.
	b    []byte
	line int
	// seen counts the runs, calls and faults since the last end line; open
	// says those lines include one of format 2, which an end line must
	// close.
	seen End
	open bool
	// format is the format of the last line read.
	format int
}

// fail is an *InputError of the line being read.
func (rd *reader) fail(format string, args ...any) error {
	return &InputError{File: rd.h.File, Line: rd.line, Msg: fmt.Sprintf(format, args...)}
}

// firstFail is fail, but for a first line that is a notesbench result, which
// is said instead.
func (rd *reader) firstFail(format string, args ...any) error {
	if rd.line == 1 {
		if experiment, ok := resultHead(bytes.Clone(rd.b), rd.br); ok {
			return &InputError{File: rd.h.File, Msg: fmt.Sprintf("a notesbench result (%s), not a history: check reads the files --history writes", experiment)}
		}
	}
	return rd.fail(format, args...)
}

// record reads the line rd.b holds into the history.
func (rd *reader) record() error {
	if len(bytes.TrimSpace(rd.b)) == 0 {
		return rd.fail("empty line")
	}
	// One decoding per line: the fields of every kind at once.
	var l anyLine
	if err := json.Unmarshal(rd.b, &l); err != nil {
		return rd.firstFail("malformed record: %s", jsonerr.Describe(err))
	}
	if l.FormatVersion == nil {
		return rd.firstFail("format_version missing")
	}
	rd.format = *l.FormatVersion
	if rd.format != 1 && rd.format != FormatVersion {
		return rd.fail("format_version %d is not supported (this notesbench reads 1 and %d)", rd.format, FormatVersion)
	}
	if rd.line == 1 && l.Kind != KindHistory {
		return rd.fail("not a history: the first line must be the history header, not %q", l.Kind)
	}
	if rd.format == 2 && l.Kind != KindEnd {
		rd.open = true
	}
	switch l.Kind {
	case KindHistory:
		return rd.header(l)
	case KindRun:
		return rd.run(l)
	case KindCall:
		return rd.call(l)
	case KindFault:
		return rd.fault(l)
	case KindFinal:
		return rd.final(l)
	case KindEnd:
		return rd.end(l)
	}
	return rd.fail("unknown kind %q (want history, run, call, fault, final or end)", l.Kind)
}

func (rd *reader) header(l anyLine) error {
	if rd.line != 1 {
		return rd.fail("a second history header: two histories are mixed in one file")
	}
	rd.h.Header = Header{Experiment: l.Experiment, Command: l.Command}
	rd.h.FormatVersion = rd.format
	if rd.h.Header.Experiment == "" {
		return rd.fail("history header: experiment missing")
	}
	return nil
}

func (rd *reader) run(l anyLine) error {
	rh := RunHeader{Run: l.Run, Seed: l.Seed, Clock: l.Clock, Variant: l.Variant, Policy: l.Policy, ServerTools: l.ServerTools}
	if err := checkRunHeader(rh); err != nil {
		return rd.fail("run header: %v", err)
	}
	if prev, ok := rd.runs[rh.Run]; ok {
		return rd.fail("run %q is declared again (first on line %d): runs of different histories are mixed", rh.Run, prev.Line)
	}
	run := &Run{Header: rh, Line: rd.line}
	rd.runs[rh.Run] = run
	rd.h.Runs = append(rd.h.Runs, run)
	rd.seen.Runs++
	return nil
}

func (rd *reader) call(l anyLine) error {
	c := l.Call
	run, err := rd.runOf("call of run", c.Run)
	if err != nil {
		return err
	}
	if rd.format == 1 {
		if err := fromFormat1(&c); err != nil {
			return rd.fail("call: %v", err)
		}
	} else if err := checkOutcome(c); err != nil {
		return rd.fail("call: %v", err)
	}
	if err := checkCall(c); err != nil {
		return rd.fail("call: %v", err)
	}
	run.Calls = append(run.Calls, c)
	rd.seen.Calls++
	return nil
}

func (rd *reader) fault(l anyLine) error {
	f := Fault{Run: l.Run, Kind: l.Fault, Start: l.Start, End: l.EndNS, PID: l.PID, Detail: l.Detail}
	run, err := rd.runOf("fault in run", f.Run)
	if err != nil {
		return err
	}
	if err := checkFault(f); err != nil {
		return rd.fail("fault: %v", err)
	}
	run.Faults = append(run.Faults, f)
	rd.seen.Faults++
	return nil
}

func (rd *reader) final(l anyLine) error {
	f := Final{Run: l.Run, Note: l.Note, Version: l.Version, Tabs: l.Tabs, Text: l.Text, Sheets: l.Sheets, Sources: l.Sources}
	run, err := rd.runOf("final state of run", f.Run)
	switch key := [2]string{f.Run, f.Note}; {
	case err != nil:
		return err
	case f.Note == "":
		return rd.fail("final state: note missing")
	case rd.finals[key]:
		return rd.fail("a second final state of note %q in run %q", f.Note, f.Run)
	default:
		rd.finals[key] = true
	}
	run.Finals = append(run.Finals, f)
	return nil
}

// runOf returns the run a record of the line names, which a run header
// must have declared before it; what says what the record is, for the
// error.
func (rd *reader) runOf(what, run string) (*Run, error) {
	r, ok := rd.runs[run]
	if !ok {
		return nil, rd.fail("%s %q, which no run header declared before it", what, run)
	}
	return r, nil
}

func (rd *reader) end(l anyLine) error {
	end := End{Runs: l.Runs, Calls: l.Calls, Faults: l.Faults}
	if end.Runs > rd.seen.Runs || end.Calls > rd.seen.Calls || end.Faults > rd.seen.Faults {
		return rd.fail("end: it counts %s, the lines before it hold %s: lines are missing", end, rd.seen)
	}
	// An end line that counts less closes a merged history's part whose
	// own end line is missing: that part was cut short.
	rd.h.Cut = rd.h.Cut || end != rd.seen
	rd.seen, rd.open = End{}, false
	return nil
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
		return errors.New("fault: missing (the kind of fault, as --nemesis names it: kill, …)")
	case f.End < f.Start:
		return fmt.Errorf("end_ns: %d is before start_ns %d", f.End, f.Start)
	case f.PID < 0:
		return fmt.Errorf("pid: %d is not a process", f.PID)
	}
	return nil
}
