package history

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// stub is a contract.Session whose every call answers with the next scripted
// reply.
type stub struct {
	version int
	fail    error
	closed  bool
}

func (s *stub) v() contract.Version { return contract.Version(string(rune('0' + s.version))) }

func (s *stub) ListNoteTabs(_ context.Context, noteID string) (contract.TabList, error) {
	return contract.TabList{NoteID: noteID, Version: s.v(), Tabs: []contract.TabInfo{
		{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Text"},
		{TabID: "sheet-4-x", Type: contract.TypeSheet, Label: "Data", Position: 3},
	}}, nil
}

func (s *stub) ReadNoteTab(_ context.Context, noteID, tabID string) (contract.TabContent, error) {
	if tabID == "markdown" {
		return contract.TabContent{NoteID: noteID, TabID: tabID, Type: contract.TypeMarkdown, Version: s.v(), Text: "\nclaude-0"}, nil
	}
	return contract.TabContent{NoteID: noteID, TabID: tabID, Type: contract.TypeSheet, Version: s.v(),
		Sheets: []contract.Sheet{{SheetID: "s1", Name: "Sheet 1", Cells: [][]any{{"human-0"}}}}}, nil
}

func (s *stub) ReadSheetRange(context.Context, contract.RangeRequest) (contract.SheetRange, error) {
	return contract.SheetRange{Version: s.v()}, nil
}

func (s *stub) ListNoteAttachments(_ context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	if req.Cursor == "" {
		return contract.AttachmentPage{Items: []contract.Attachment{{ID: "source-1", URL: "https://a.example/x"}}, NextCursor: "after-1"}, nil
	}
	return contract.AttachmentPage{Items: []contract.Attachment{{ID: "source-2", URL: "https://b.example/y"}}}, nil
}

func (s *stub) EditNoteTab(_ context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if s.fail != nil {
		return contract.EditResult{}, s.fail
	}
	if string(req.ExpectedVersion) != string(s.v()) {
		return contract.EditResult{}, &contract.ConflictError{Current: s.v()}
	}
	s.version++
	return contract.EditResult{Version: s.v()}, nil
}

func (s *stub) CreateNoteTab(_ context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	s.version++
	return contract.CreateResult{TabID: "sheet-9-x", Version: s.v(), Replayed: req.IdempotencyKey == "again"}, nil
}

func (s *stub) AddNoteSource(_ context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	return contract.SourceResult{}, &contract.NotFoundError{Field: "note_id", ID: req.NoteID}
}

func (s *stub) Close() error { s.closed = true; return nil }

// The recorder writes every call with its arguments, intent, times and
// outcome; a lost reply forgets what the reply said; the reader gives the same
// records back.
func TestRecordAndReadBack(t *testing.T) {
	ctx := context.Background()
	w := NewWriter(Header{Experiment: "race", Command: "test"})
	var now int64 = 100
	rec, err := w.Run(RunHeader{Run: "race-note-refresh-seed1", Seed: 1, Clock: "virtual",
		Variant: contract.Variant{Guard: contract.GuardNote}, Policy: "refresh"}, func() int64 { return now })
	if err != nil {
		t.Fatal(err)
	}
	inner := &stub{version: 1}
	s := rec.Session(inner, "claude")
	read, _ := s.ReadNoteTab(ctx, "note-1", "markdown")
	Intend(s, Intent{Mark: "claude-0", Base: read.Version})
	now = 200
	if _, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1",
		IdempotencyKey: "claude-0-1", Operation: contract.OpReplaceText, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	// A stale write conflicts; then the refresh policy sends the fresh version
	// with the old content.
	if _, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1",
		IdempotencyKey: "claude-0-2", Operation: contract.OpReplaceText}); err == nil {
		t.Fatal("stale write passed the stub")
	}
	if _, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "2",
		IdempotencyKey: "claude-0-3", Operation: contract.OpReplaceText}); err != nil {
		t.Fatal(err)
	}
	LoseReply(s)
	h := rec.Session(&stub{version: 5}, "human")
	Intend(h, Intent{Mark: "human-0"})
	h.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "sheet-4-x", ExpectedVersion: "5",
		IdempotencyKey: "human-0-1", Operation: contract.OpSheetSetRange, SheetID: "s1", StartRow: 3, Values: [][]any{{"human-0"}}})
	h.CreateNoteTab(ctx, contract.CreateRequest{NoteID: "note-1", ExpectedVersion: "6", IdempotencyKey: "again", TabType: contract.TypeSheet})
	h.AddNoteSource(ctx, contract.SourceRequest{NoteID: "note-1", ExpectedVersion: "7", IdempotencyKey: "k", Title: "t", URL: "https://a.example/x"})
	h.(*session).inner.(*stub).fail = errors.New("database is locked")
	h.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "7", IdempotencyKey: "h2", Operation: contract.OpReplaceText})
	if err := rec.Final(ctx, inner, "note-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil || !inner.closed {
		t.Error("Close did not close the inner session")
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 11:\n%s", len(lines), buf.String())
	}
	if want := `{"format_version":1,"kind":"call","run":"race-note-refresh-seed1","editor":"claude","session":1,"tool":"edit_note_tab","note":"note-1","tab":"markdown","operation":"replace_text","expected_version":"1","idempotency_key":"claude-0-1","intent":"claude-0","invoke_ns":200,"return_ns":201,"outcome":"ok","version":"2"}`; lines[3] != want {
		t.Errorf("line 4:\n got %s\nwant %s", lines[3], want)
	}

	got, err := Read(context.Background(), &buf, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Experiment != "race" || len(got.Runs) != 1 {
		t.Fatalf("read %+v", got)
	}
	run := got.Runs[0]
	if run.Header.Variant != (contract.Variant{Guard: "note", VersionFormat: "counter", Order: "key-first"}) {
		t.Errorf("variant %+v, want the defaults filled in", run.Header.Variant)
	}
	calls := run.Calls
	type want struct {
		tool     string
		outcome  Outcome
		version  string
		base     string
		errKind  string
		replayed bool
	}
	for i, w := range []want{
		{"read_note_tab", OK, "1", "", "", false},
		{"edit_note_tab", OK, "2", "", "", false},
		{"edit_note_tab", Conflict, "2", "", "", false},
		{"edit_note_tab", Unknown, "", "1", ErrorReplyLost, false},
		{"edit_note_tab", OK, "6", "", "", false},
		{"create_note_tab", OK, "7", "", "", true},
		{"add_note_source", Error, "", "", ErrorNotFound, false},
		{"edit_note_tab", Unknown, "", "", ErrorFailure, false},
	} {
		c := calls[i]
		if c.Tool != w.tool || c.Outcome != w.outcome || c.Version != w.version || c.BaseVersion != w.base || c.ErrorKind != w.errKind || c.Replayed != w.replayed {
			t.Errorf("call %d: %+v, want %+v", i+1, c, w)
		}
	}
	if at := calls[4].At; at == nil || *at != (Cell{SheetID: "s1", Row: 3}) || calls[4].Intent != "human-0" || calls[4].Session != 2 {
		t.Errorf("sheet call: %+v", calls[4])
	}
	if calls[5].TabID != "sheet-9-x" || calls[5].Label != "Sheet" {
		t.Errorf("create call: %+v", calls[5])
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Invoke <= calls[i-1].Return || calls[i].Return <= calls[i].Invoke {
			t.Errorf("calls %d and %d: times %d-%d then %d-%d do not increase", i, i+1, calls[i-1].Invoke, calls[i-1].Return, calls[i].Invoke, calls[i].Return)
		}
	}
	f := run.Finals[0]
	if f.Text != "\nclaude-0" || len(f.Sources) != 2 || len(f.Tabs) != 2 || f.Version != "3" {
		t.Errorf("final %+v", f)
	}
	if sh := f.Sheets["sheet-4-x"]; len(sh) != 1 || sh[0].Cells[0][0] != "human-0" {
		t.Errorf("final sheets %+v: want the edited sheet read back", f.Sheets)
	}
}

// Intend and LoseReply leave a session that is not recorded as it was, and
// LoseReply before a recorded session's first call loses no reply.
func TestHooksOutsideARecordedCall(t *testing.T) {
	plain := &stub{version: 2}
	Intend(plain, Intent{Mark: "x"})
	LoseReply(plain)
	if *plain != (stub{version: 2}) {
		t.Errorf("the hooks changed a plain session: %+v", *plain)
	}

	ctx := context.Background()
	w := NewWriter(Header{Experiment: "race"})
	rec, err := w.Run(RunHeader{Run: "a"}, func() int64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Session(&stub{version: 1}, "claude")
	LoseReply(s)
	if _, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1",
		IdempotencyKey: "k", Operation: contract.OpReplaceText}); err != nil {
		t.Fatal(err)
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(context.Background(), &buf, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if calls := got.Runs[0].Calls; len(calls) != 1 || calls[0].Outcome != OK || calls[0].Version != "2" {
		t.Errorf("calls %+v: want the one edit, ok at version 2", calls)
	}
}

// A run is named once; a history with a run not ended is not written; WriteFile
// leaves nothing behind on error.
func TestWriterRefuses(t *testing.T) {
	w := NewWriter(Header{Experiment: "race"})
	clock := func() int64 { return 0 }
	if _, err := w.Run(RunHeader{Run: "a"}, clock); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Run(RunHeader{Run: "a"}, clock); err == nil || !strings.Contains(err.Error(), `run "a" is recorded twice`) {
		t.Errorf("second run a: %v", err)
	}
	if _, err := w.Run(RunHeader{Run: "b", Variant: contract.Variant{Guard: "sometimes"}}, clock); err == nil {
		t.Error("an unknown guard was accepted")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "h.jsonl")
	if err := w.WriteFile(path); err == nil || !strings.Contains(err.Error(), "runs not ended: a") {
		t.Errorf("WriteFile with run a open: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed WriteFile left %v", entries)
	}
}

// Runs end in any order and the file comes out the same: header, then runs by
// name.
func TestWriterSortsRuns(t *testing.T) {
	write := func(order []string) string {
		w := NewWriter(Header{Experiment: "race"})
		for _, name := range order {
			rec, err := w.Run(RunHeader{Run: name}, func() int64 { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			rec.Session(&stub{}, "claude").ReadNoteTab(context.Background(), "n", "markdown")
			if err := rec.End(); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(t.TempDir(), "h.jsonl")
		if err := w.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		if !IsHistoryFile(path) {
			t.Errorf("IsHistoryFile(%s) = false", path)
		}
		b, _ := os.ReadFile(path)
		return string(b)
	}
	a, b := write([]string{"r1", "r2", "r3"}), write([]string{"r3", "r1", "r2"})
	if a != b {
		t.Errorf("order of ending changed the file:\n%s\n%s", a, b)
	}
}

// Bad input: one error naming the file and line.
func TestReadBadInput(t *testing.T) {
	const (
		head = `{"format_version":1,"kind":"history","experiment":"race"}` + "\n"
		run  = `{"format_version":1,"kind":"run","run":"r","seed":1,"variant":{"guard":"note","version_format":"counter","order":"key-first"}}` + "\n"
		call = `{"format_version":1,"kind":"call","run":"r","editor":"claude","session":1,"tool":"read_note_tab","note":"n","tab":"markdown","invoke_ns":1,"return_ns":2,"outcome":"ok","version":"1"}` + "\n"
	)
	for _, tc := range []struct{ name, input, want string }{
		{"empty", "", "h.jsonl:1: empty file: no history header"},
		{"truncated", head + run + call[:40], "h.jsonl:3: truncated record: the file ends in the middle of a line"},
		{"no final newline", head + run + strings.TrimSuffix(call, "\n"), "h.jsonl:3: truncated record"},
		{"malformed", head + run + "{not json}\n", "h.jsonl:3: malformed record: invalid character"},
		{"blank line", head + "\n", "h.jsonl:2: empty line"},
		{"format version", head + strings.Replace(run, `"format_version":1`, `"format_version":2`, 1), "h.jsonl:2: format_version 2 is not supported (this notesbench reads 1)"},
		{"no format version", head + strings.Replace(run, `"format_version":1,`, ``, 1), "h.jsonl:2: format_version missing"},
		{"no header", run + call, `h.jsonl:1: not a history: the first line must be the history header, not "run"`},
		{"two histories", head + run + call + head, "h.jsonl:4: a second history header: two histories are mixed in one file"},
		{"run twice", head + run + call + run, `h.jsonl:4: run "r" is declared again (first on line 2)`},
		{"call before run", head + call, `h.jsonl:2: call of run "r", which no run header declared before it`},
		{"unknown kind", head + `{"format_version":1,"kind":"note"}` + "\n", `h.jsonl:2: unknown kind "note"`},
		{"no guard", head + strings.Replace(run, `"guard":"note",`, "", 1), "h.jsonl:2: run header: variant.guard: missing"},
		{"bad outcome", head + run + strings.Replace(call, `"ok"`, `"fine"`, 1), `h.jsonl:3: call: outcome: "fine" is not ok, conflict, error or unknown`},
		{"conflict without version", head + run + `{"format_version":1,"kind":"call","run":"r","editor":"c","tool":"edit_note_tab","note":"n","tab":"markdown","expected_version":"1","idempotency_key":"k","outcome":"conflict"}` + "\n",
			"h.jsonl:3: call: version: a conflict must report the current version"},
		{"times backwards", head + run + strings.Replace(call, `"return_ns":2`, `"return_ns":0`, 1), "h.jsonl:3: call: return_ns: 0 is before invoke_ns 1"},
		{"two finals", head + run + `{"format_version":1,"kind":"final","run":"r","note":"n"}` + "\n" + `{"format_version":1,"kind":"final","run":"r","note":"n"}` + "\n",
			`h.jsonl:4: a second final state of note "n" in run "r"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(context.Background(), strings.NewReader(tc.input), "h.jsonl")
			var ie *InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want one starting %q", err, tc.want)
			}
		})
	}
	if _, err := Read(context.Background(), strings.NewReader(head+run+call), "h.jsonl"); err != nil {
		t.Errorf("the good history: %v", err)
	}
	if _, err := ReadFile(context.Background(), filepath.Join(t.TempDir(), "missing.jsonl")); err == nil || !strings.HasSuffix(err.Error(), "missing.jsonl: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
}

// A history is read with bounds: a field of the wrong kind is named as the
// user wrote it (no Go type), a line without end is refused at MaxLine
// without reading on, a device is refused before it is read, and a read
// stops when its ctx ends.
func TestReadBounds(t *testing.T) {
	head := `{"format_version":1,"kind":"history","experiment":"race"}` + "\n"
	if _, err := Read(context.Background(), strings.NewReader(`{"format_version":"1","kind":"history"}`+"\n"), "h.jsonl"); err == nil ||
		err.Error() != "h.jsonl:1: malformed record: format_version: a JSON string where a number is wanted" {
		t.Errorf("a field of the wrong kind: %v", err)
	}
	endless := io.MultiReader(strings.NewReader(head), &zeros{n: 3 * MaxLine})
	if _, err := Read(context.Background(), endless, "z"); err == nil || err.Error() != "z:2: a line longer than 16 MiB: not a history" {
		t.Errorf("a line without end: %v", err)
	}
	if _, err := ReadFile(context.Background(), os.DevNull); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a device: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, strings.NewReader(head), "h.jsonl"); !errors.Is(err, context.Canceled) {
		t.Errorf("a read after its ctx ended: %v", err)
	}
}

// zeros reads n zero bytes, then EOF.
type zeros struct{ n int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), z.n)
	clear(p[:n])
	z.n -= n
	return n, nil
}

// Histories merge into one that reads back whole: runs of the same name from
// two processes are kept apart, the later named after its file, and runs on
// one Note named by the user from two processes are refused.
func TestMergeHistories(t *testing.T) {
	one := func(command string) []byte {
		var buf bytes.Buffer
		w := NewWriter(Header{Experiment: "race", Command: command})
		rec, err := w.Run(RunHeader{Run: "race-none-seed1", Seed: 1, Variant: contract.Variant{}.WithDefaults()}, func() int64 { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
		w.WriteTo(&buf)
		return buf.Bytes()
	}
	var out bytes.Buffer
	if err := Merge(context.Background(), &out, []string{"a/h1.jsonl", "b/h2.jsonl"}, [][]byte{one("notesbench race"), one("notesbench race --parallel 1")}); err != nil {
		t.Fatal(err)
	}
	h, err := Read(context.Background(), &out, "merged")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(h.Runs) != 2 || h.Runs[0].Header.Run != "race-none-seed1" || h.Runs[1].Header.Run != "h2/race-none-seed1" {
		t.Fatalf("runs %+v", h.Runs)
	}
	err = Merge(context.Background(), io.Discard, []string{"h1", "h2"}, [][]byte{one("notesbench race --target http://x --note n1"), one("notesbench race --target http://x --note n1 --seeds 2")})
	if err == nil || !strings.Contains(err.Error(), "which h1's runs wrote too") {
		t.Errorf("one Note from two processes: %v", err)
	}
	// The same history twice, as one file or a copy, would have every run
	// checked twice: refused, naming the second.
	err = Merge(context.Background(), io.Discard, []string{"h1", "h1", "h2"}, [][]byte{one("notesbench race"), one("notesbench race"), one("notesbench race --seeds 2")})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "h1" || ie.Msg != "the same history as h1: given twice, every run of it would be checked twice" {
		t.Errorf("the same history twice: %v", err)
	}
}
