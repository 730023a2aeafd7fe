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
	"reflect"
	"strings"

	"github.com/notesbench/notesbench/contract"
)

// History is one history file, read and checked line by line.
type History struct {
	// File is the name the history was read under, for messages.
	File   string
	Header Header
	// Runs are in the order of their run headers.
	Runs []*Run
}

// Run is one run of a history: its header, its calls in file order and the
// final state of its Notes.
type Run struct {
	Header RunHeader
	Calls  []Call
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
// when ctx ends, between two reads of r, with ctx's error. Every problem is
// an *InputError naming the line: an empty file, a line longer than MaxLine,
// a line that is not a JSON object of a known kind, a truncated last line, a
// format_version other than FormatVersion, a missing history header, a
// second history header (two histories run together), a run declared twice
// or a record of a run not declared before it, a call whose fields
// contradict each other, a second final state of one Note.
func Read(ctx context.Context, r io.Reader, name string) (*History, error) {
	h := &History{File: name}
	runs := map[string]*Run{}
	finals := map[[2]string]bool{}
	br := bufio.NewReaderSize(ctxReader{ctx, r}, 1<<16)
	fail := func(line int, format string, args ...any) error {
		return &InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	line := 0
	for {
		b, err := readLine(br)
		if err == io.EOF && len(b) == 0 {
			break
		}
		line++
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == errLongLine:
			return nil, fail(line, "a line longer than %d MiB: not a history", MaxLine>>20)
		case err == io.EOF:
			return nil, fail(line, "truncated record: the file ends in the middle of a line")
		case err != nil:
			return nil, &InputError{File: name, Line: line, Msg: err.Error()}
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, fail(line, "empty line")
		}
		// One decoding per line: the fields of every kind at once.
		var l anyLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fail(line, "malformed record: %s", jsonProblem(err))
		}
		if l.FormatVersion == nil {
			return nil, fail(line, "format_version missing")
		}
		if *l.FormatVersion != FormatVersion {
			return nil, fail(line, "format_version %d is not supported (this notesbench reads %d)", *l.FormatVersion, FormatVersion)
		}
		if line == 1 && l.Kind != KindHistory {
			return nil, fail(line, "not a history: the first line must be the history header, not %q", l.Kind)
		}
		switch l.Kind {
		case KindHistory:
			if line != 1 {
				return nil, fail(line, "a second history header: two histories are mixed in one file")
			}
			h.Header = Header{Experiment: l.Experiment, Command: l.Command}
			if h.Header.Experiment == "" {
				return nil, fail(line, "history header: experiment missing")
			}
		case KindRun:
			rh := RunHeader{Run: l.Run, Seed: l.Seed, Clock: l.Clock, Variant: l.Variant, Policy: l.Policy}
			if err := checkRunHeader(rh); err != nil {
				return nil, fail(line, "run header: %v", err)
			}
			if prev, ok := runs[rh.Run]; ok {
				return nil, fail(line, "run %q is declared again (first on line %d): runs of different histories are mixed", rh.Run, prev.Line)
			}
			run := &Run{Header: rh, Line: line}
			runs[rh.Run] = run
			h.Runs = append(h.Runs, run)
		case KindCall:
			c := l.Call
			run, ok := runs[c.Run]
			if !ok {
				return nil, fail(line, "call of run %q, which no run header declared before it", c.Run)
			}
			if err := checkCall(c); err != nil {
				return nil, fail(line, "call: %v", err)
			}
			run.Calls = append(run.Calls, c)
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
		default:
			return nil, fail(line, "unknown kind %q (want history, run, call or final)", l.Kind)
		}
	}
	if line == 0 {
		return nil, fail(1, "empty file: no history header")
	}
	return h, nil
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

// jsonProblem says what is wrong with a JSON record in a user's words: the
// field and what it holds, not the Go type that could not take it.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if i := strings.LastIndex(field, "."); i >= 0 {
			field = field[i+1:]
		}
		if field == "" {
			return fmt.Sprintf("a JSON %s where an object is wanted", te.Value)
		}
		return fmt.Sprintf("%s: a JSON %s where a %s is wanted", field, te.Value, jsonKind(te.Type.Kind()))
	}
	return err.Error()
}

// jsonKind names the JSON a Go kind reads.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "number"
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
	Experiment string                      `json:"experiment"`
	Command    string                      `json:"command"`
	Seed       uint64                      `json:"seed"`
	Clock      string                      `json:"clock"`
	Variant    contract.Variant            `json:"variant"`
	Policy     string                      `json:"policy"`
	Tabs       []FinalTab                  `json:"tabs"`
	Text       string                      `json:"text"`
	Sheets     map[string][]contract.Sheet `json:"sheets"`
	Sources    []contract.Attachment       `json:"sources"`
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
	if err := h.Variant.Validate(); err != nil {
		return fmt.Errorf("variant: %w", err)
	}
	return nil
}

var tools = map[string]bool{
	contract.ToolListNoteTabs: true, contract.ToolReadNoteTab: true, contract.ToolReadSheetRange: true,
	contract.ToolListNoteAttachments: true, contract.ToolEditNoteTab: true, contract.ToolCreateNoteTab: true,
	contract.ToolAddNoteSource: true,
}

func checkCall(c Call) error {
	switch {
	case c.Editor == "":
		return errors.New("editor: missing")
	case !tools[c.Tool]:
		return fmt.Errorf("tool: unknown tool %q", c.Tool)
	case c.Note == "":
		return errors.New("note: missing")
	case !c.Outcome.valid():
		return fmt.Errorf("outcome: %q is not ok, conflict, error or unknown", c.Outcome)
	case c.Return < c.Invoke:
		return fmt.Errorf("return_ns: %d is before invoke_ns %d", c.Return, c.Invoke)
	case c.IsWrite() && c.ExpectedVersion == "":
		return errors.New("expected_version: missing on a write")
	case c.IsWrite() && c.Key == "":
		return errors.New("idempotency_key: missing on a write")
	case c.Outcome == Conflict && c.Version == "":
		return errors.New("version: a conflict must report the current version")
	case c.Outcome == Conflict && !c.IsWrite():
		return fmt.Errorf("outcome: a %s call cannot conflict", c.Tool)
	case c.Outcome == OK && c.Version == "" && c.Tool != contract.ToolListNoteAttachments:
		return errors.New("version: missing on a successful call")
	case c.Outcome == OK && c.Tool == contract.ToolCreateNoteTab && c.TabID == "":
		return errors.New("tab_id: missing on a successful create_note_tab")
	case c.Outcome == OK && c.Tool == contract.ToolAddNoteSource && c.SourceID == "":
		return errors.New("source_id: missing on a successful add_note_source")
	case c.Outcome == Error && c.ErrorKind == "":
		return errors.New("error_kind: missing on an error")
	case (c.Tool == contract.ToolEditNoteTab || c.Tool == contract.ToolReadNoteTab) && c.Tab == "":
		return errors.New("tab: missing")
	}
	return nil
}
