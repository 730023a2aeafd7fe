package history

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
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
	rec, err := Record(w, RunHeader{Run: "race-note-refresh-seed1", Seed: 1, Clock: "virtual",
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
	if len(lines) != 12 {
		t.Fatalf("%d lines, want 12:\n%s", len(lines), buf.String())
	}
	if want := `{"format_version":2,"kind":"end","runs":1,"calls":8,"faults":0}`; lines[11] != want {
		t.Errorf("last line:\n got %s\nwant %s", lines[11], want)
	}
	if want := `{"format_version":2,"kind":"call","run":"race-note-refresh-seed1","editor":"claude","session":1,"tool":"edit_note_tab","note":"note-1","tab":"markdown","operation":"replace_text","expected_version":"1","idempotency_key":"claude-0-1","intent":"claude-0","digest":"73cb3858a687a8494ca33230","invoke_ns":200,"return_ns":201,"outcome":"ok","version":"2"}`; lines[3] != want {
		t.Errorf("line 4:\n got %s\nwant %s", lines[3], want)
	}

	got, err := Read(context.Background(), &buf, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Experiment != "race" || len(got.Runs) != 1 || got.FormatVersion != 2 || got.Cut {
		t.Fatalf("read %+v", got)
	}
	run := got.Runs[0]
	if run.Header.Variant != (contract.Variant{Guard: "note", VersionFormat: "counter", Order: "key-first"}) {
		t.Errorf("variant %+v, want the defaults filled in", run.Header.Variant)
	}
	calls := run.Calls
	type want struct {
		tool     string
		outcome  contract.Outcome
		version  string
		base     string
		errKind  string
		replayed bool
	}
	for i, w := range []want{
		{"read_note_tab", contract.OK, "1", "", "", false},
		{"edit_note_tab", contract.OK, "2", "", "", false},
		{"edit_note_tab", contract.Fail, "2", "", contract.KindConflict, false},
		{"edit_note_tab", contract.Info, "", "1", contract.KindReplyLost, false},
		{"edit_note_tab", contract.OK, "6", "", "", false},
		{"create_note_tab", contract.OK, "7", "", "", true},
		{"add_note_source", contract.Fail, "", "", contract.KindNotFound, false},
		{"edit_note_tab", contract.Info, "", "", contract.KindFailure, false},
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
	rec, err := Record(w, RunHeader{Run: "a"}, func() int64 { return 0 })
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
	got := readBack(t, w)
	if calls := got.Runs[0].Calls; len(calls) != 1 || calls[0].Outcome != contract.OK || calls[0].Version != "2" {
		t.Errorf("calls %+v: want the one edit, ok at version 2", calls)
	}
}

// A run is named once; a history with a run not ended is not written; WriteFile
// leaves nothing behind on error.
func TestWriterRefuses(t *testing.T) {
	w := NewWriter(Header{Experiment: "race"})
	clock := func() int64 { return 0 }
	if _, err := Record(w, RunHeader{Run: "a"}, clock); err != nil {
		t.Fatal(err)
	}
	if _, err := Record(w, RunHeader{Run: "a"}, clock); err == nil || !strings.Contains(err.Error(), `run "a" is recorded twice`) {
		t.Errorf("second run a: %v", err)
	}
	if _, err := Record(w, RunHeader{Run: "b", Variant: contract.Variant{Guard: "sometimes"}}, clock); err == nil {
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
			rec, err := Record(w, RunHeader{Run: name}, func() int64 { return 0 })
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
		{"format version", head + strings.Replace(run, `"format_version":1`, `"format_version":3`, 1), "h.jsonl:2: format_version 3 is not supported (this notesbench reads 1 and 2)"},
		{"no format version", head + strings.Replace(run, `"format_version":1,`, ``, 1), "h.jsonl:2: format_version missing"},
		{"no header", run + call, `h.jsonl:1: not a history: the first line must be the history header, not "run"`},
		{"two histories", head + run + call + head, "h.jsonl:4: a second history header: two histories are mixed in one file"},
		{"run twice", head + run + call + run, `h.jsonl:4: run "r" is declared again (first on line 2)`},
		{"call before run", head + call, `h.jsonl:2: call of run "r", which no run header declared before it`},
		{"unknown kind", head + `{"format_version":1,"kind":"note"}` + "\n", `h.jsonl:2: unknown kind "note"`},
		{"no guard", head + strings.Replace(run, `"guard":"note",`, "", 1), "h.jsonl:2: run header: variant.guard: missing"},
		{"bad outcome", head + run + strings.Replace(call, `"ok"`, `"fine"`, 1), `h.jsonl:3: call: outcome: "fine" is not ok, conflict, error or unknown`},
		{"read conflicts", head + run + strings.Replace(call, `"ok"`, `"conflict"`, 1), "h.jsonl:3: call: outcome: a read_note_tab call cannot conflict"},
		{"error without kind", head + run + strings.Replace(call, `"ok"`, `"error"`, 1), "h.jsonl:3: call: error_kind: missing on an error"},
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
		rec, err := Record(w, RunHeader{Run: "race-none-seed1", Seed: 1, Variant: contract.Variant{}.WithDefaults()}, func() int64 { return 0 })
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

// A fault is recorded on the run's clock, written among the calls before
// the first call that returned after it began, and read back; the end line
// counts runs, calls and faults; Fault refuses a fault without a kind or
// ending before it starts.
func TestFaultsAndEndLine(t *testing.T) {
	ctx := context.Background()
	w := NewWriter(Header{Experiment: "race"})
	var now int64
	rec, err := Record(w, RunHeader{Run: "r"}, func() int64 { now += 100; return now })
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Session(&stub{version: 1}, "claude")
	s.ReadNoteTab(ctx, "note-1", "markdown")
	start := rec.Now()
	if err := rec.Fault(Fault{Kind: FaultKill, Start: start, End: rec.Now(), PID: 4711, Detail: "restarted"}); err != nil {
		t.Fatal(err)
	}
	s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "k", Operation: contract.OpReplaceText})
	for _, tc := range []struct {
		f    Fault
		want string
	}{
		{Fault{Start: 1, End: 2}, `history: run "r": fault: missing`},
		{Fault{Kind: FaultPause, Start: 5, End: 4}, `history: run "r": end_ns: 4 is before start_ns 5`},
	} {
		if err := rec.Fault(tc.f); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Fault(%+v): %v, want %q", tc.f, err, tc.want)
		}
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		`{"format_version":2,"kind":"history","experiment":"race"}`,
		`{"format_version":2,"kind":"run","run":"r","seed":0,"variant":{"guard":"note","version_format":"counter","order":"key-first"}}`,
		`{"format_version":2,"kind":"call","run":"r","editor":"claude","session":1,"tool":"read_note_tab","note":"note-1","tab":"markdown","digest":"4784f6835bfd02401caceb6f","invoke_ns":100,"return_ns":200,"outcome":"ok","version":"1"}`,
		`{"format_version":2,"kind":"fault","run":"r","fault":"kill","start_ns":300,"end_ns":400,"pid":4711,"detail":"restarted"}`,
		`{"format_version":2,"kind":"call","run":"r","editor":"claude","session":1,"tool":"edit_note_tab","note":"note-1","tab":"markdown","operation":"replace_text","expected_version":"1","idempotency_key":"k","digest":"e3b0c44298fc1c149afbf4c8","invoke_ns":500,"return_ns":600,"outcome":"ok","version":"2"}`,
		`{"format_version":2,"kind":"end","runs":1,"calls":2,"faults":1}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("history:\n%s\nwant:\n%s", buf.String(), strings.Join(want, "\n"))
	}
	h, err := Read(ctx, &buf, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if f := h.Runs[0].Faults; h.Cut || len(f) != 1 || f[0] != (Fault{Run: "r", Kind: "kill", Start: 300, End: 400, PID: 4711, Detail: "restarted"}) {
		t.Errorf("read back: cut %v, faults %+v", h.Cut, f)
	}
	if got := h.Runs[0].Faults[0].String(); got != "kill from 0.00 s to 0.00 s (pid 4711): restarted" {
		t.Errorf("fault described as %q", got)
	}
	if got := (Fault{Kind: "kill", Start: 1_200_000_000, End: 1_200_000_000, PID: 4711}).String(); got != "kill at 1.20 s (pid 4711)" {
		t.Errorf("fault described as %q", got)
	}
}

// The recorder classifies as the contract does: a conflict is a fail of
// kind conflict with the current version its reply named, none when it named
// none; a refusal is a fail; an indeterminate error, exhausted retries
// (busy) among them, is info; anything else is info of kind failure.
func TestRecorderOutcomes(t *testing.T) {
	ctx := context.Background()
	w := NewWriter(Header{Experiment: "race"})
	rec, err := Record(w, RunHeader{Run: "r", Variant: contract.Variant{VersionFormat: contract.FormatOpaque}}, func() int64 { return 0 })
	if err != nil {
		t.Fatalf("a run of opaque versions: %v", err)
	}
	inner := &stub{version: 1}
	s := rec.Session(inner, "claude")
	edit := func(fail error) {
		inner.fail = fail
		s.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "k", Operation: contract.OpReplaceText})
	}
	edit(&contract.ConflictError{Current: "7"})
	edit(&contract.ConflictError{})
	edit(&contract.RefusedError{Tool: "update", Reply: "task_not_found"})
	edit(contract.Indeterminate(contract.KindBusy, errors.New("could not serialize access after 5 tries")))
	edit(errors.New("database is locked"))
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	h := readBack(t, w)
	type want struct {
		outcome       contract.Outcome
		kind, version string
		error         string
		conflict      bool
	}
	for i, w := range []want{
		{contract.Fail, contract.KindConflict, "7", "", true},
		{contract.Fail, contract.KindConflict, "", "", true},
		{contract.Fail, contract.KindRefused, "", "update refused: task_not_found", false},
		{contract.Info, contract.KindBusy, "", "could not serialize access after 5 tries", false},
		{contract.Info, contract.KindFailure, "", "database is locked", false},
	} {
		c := h.Runs[0].Calls[i]
		if c.Outcome != w.outcome || c.ErrorKind != w.kind || c.Version != w.version || c.Error != w.error || c.IsConflict() != w.conflict {
			t.Errorf("call %d: %+v, want %+v", i+1, c, w)
		}
	}
	if got := h.Runs[0].Calls[1].String(); !strings.HasSuffix(got, "→ conflict (no current version named)") {
		t.Errorf("a conflict without a current version described as %q", got)
	}
	if got := h.Runs[0].Calls[3].String(); !strings.HasSuffix(got, "→ info (busy)") {
		t.Errorf("exhausted retries described as %q", got)
	}
	if v := h.Runs[0].Header.Variant.VersionFormat; v != contract.FormatOpaque {
		t.Errorf("version format %q read back", v)
	}
}

// A history of format 1 reads as it did, its outcomes mapped to format 2's:
// conflict to fail of kind conflict (with or without a current version), error
// to fail of its kind, unknown to info of its kind (failure when none). It has
// no end line and is not cut short.
func TestReadFormat1(t *testing.T) {
	const (
		head = `{"format_version":1,"kind":"history","experiment":"race"}` + "\n"
		run  = `{"format_version":1,"kind":"run","run":"r","seed":1,"variant":{"guard":"note","version_format":"counter","order":"key-first"}}` + "\n"
		edit = `{"format_version":1,"kind":"call","run":"r","editor":"c","tool":"edit_note_tab","note":"n","tab":"markdown","expected_version":"1","idempotency_key":"k",`
	)
	in := head + run +
		edit + `"outcome":"ok","version":"2"}` + "\n" +
		edit + `"outcome":"conflict","version":"2"}` + "\n" +
		edit + `"outcome":"conflict"}` + "\n" +
		edit + `"outcome":"error","error_kind":"not_found","error":"no note n"}` + "\n" +
		edit + `"outcome":"unknown","error_kind":"reply_lost"}` + "\n" +
		edit + `"outcome":"unknown"}` + "\n"
	h, err := Read(context.Background(), strings.NewReader(in), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if h.FormatVersion != 1 || h.Cut || h.Lines != 8 {
		t.Errorf("format %d, cut %v, %d lines; want 1, false, 8", h.FormatVersion, h.Cut, h.Lines)
	}
	type want struct {
		outcome       contract.Outcome
		kind, version string
	}
	for i, w := range []want{
		{contract.OK, "", "2"},
		{contract.Fail, contract.KindConflict, "2"},
		{contract.Fail, contract.KindConflict, ""},
		{contract.Fail, contract.KindNotFound, ""},
		{contract.Info, contract.KindReplyLost, ""},
		{contract.Info, contract.KindFailure, ""},
	} {
		if c := h.Runs[0].Calls[i]; c.Outcome != w.outcome || c.ErrorKind != w.kind || c.Version != w.version {
			t.Errorf("call %d: %s %s %q, want %+v", i+1, c.Outcome, c.ErrorKind, c.Version, w)
		}
	}
}

// Format 2's outcomes and lines: bad input is one error naming the line.
func TestReadFormat2BadInput(t *testing.T) {
	const (
		head = `{"format_version":2,"kind":"history","experiment":"race"}` + "\n"
		run  = `{"format_version":2,"kind":"run","run":"r","seed":1,"variant":{"guard":"note","version_format":"counter","order":"key-first"}}` + "\n"
		edit = `{"format_version":2,"kind":"call","run":"r","editor":"c","tool":"edit_note_tab","note":"n","tab":"markdown","expected_version":"1","idempotency_key":"k",`
		read = `{"format_version":2,"kind":"call","run":"r","editor":"c","tool":"read_note_tab","note":"n","tab":"markdown",`
	)
	for _, tc := range []struct{ name, input, want string }{
		{"format 3", head + strings.Replace(run, `"format_version":2`, `"format_version":3`, 1), "h.jsonl:2: format_version 3 is not supported (this notesbench reads 1 and 2)"},
		{"format 1 outcome", head + run + edit + `"outcome":"conflict","version":"2"}` + "\n", `h.jsonl:3: call: outcome: "conflict" is not ok, fail or info`},
		{"fail without kind", head + run + edit + `"outcome":"fail"}` + "\n", "h.jsonl:3: call: error_kind: missing on a call whose outcome is fail"},
		{"info without kind", head + run + edit + `"outcome":"info"}` + "\n", "h.jsonl:3: call: error_kind: missing on a call whose outcome is info"},
		{"fail of an info kind", head + run + edit + `"outcome":"fail","error_kind":"timeout"}` + "\n", `h.jsonl:3: call: error_kind: "timeout" is no kind of fail (want conflict, not_found, invalid_argument, schema, refused or gone)`},
		{"info of a fail kind", head + run + edit + `"outcome":"info","error_kind":"conflict"}` + "\n", "h.jsonl:3: call: error_kind: conflict is a kind of fail, not of info"},
		{"ok with a kind", head + run + edit + `"outcome":"ok","version":"2","error_kind":"busy"}` + "\n", `h.jsonl:3: call: error_kind: "busy" on an ok call`},
		{"read conflicts", head + run + read + `"outcome":"fail","error_kind":"conflict"}` + "\n", "h.jsonl:3: call: outcome: a read_note_tab call cannot conflict"},
		{"bad variant", head + strings.Replace(run, `"counter"`, `"sha"`, 1), `h.jsonl:2: run header: variant: unknown version format "sha"`},
		{"fault before run", head + `{"format_version":2,"kind":"fault","run":"r","fault":"kill","start_ns":1,"end_ns":1}` + "\n", `h.jsonl:2: fault in run "r", which no run header declared before it`},
		{"fault without kind", head + run + `{"format_version":2,"kind":"fault","run":"r","start_ns":1,"end_ns":1}` + "\n", "h.jsonl:3: fault: fault: missing"},
		{"fault backwards", head + run + `{"format_version":2,"kind":"fault","run":"r","fault":"pause","start_ns":5,"end_ns":1}` + "\n", "h.jsonl:3: fault: end_ns: 1 is before start_ns 5"},
		{"end counts more", head + run + `{"format_version":2,"kind":"end","runs":1,"calls":3,"faults":0}` + "\n",
			"h.jsonl:3: end: it counts 1 runs, 3 calls and 0 faults, the lines before it hold 1 runs, 0 calls and 0 faults: lines are missing"},
		{"unknown kind", head + `{"format_version":2,"kind":"note"}` + "\n", `h.jsonl:2: unknown kind "note" (want history, run, call, fault, final or end)`},
		{"edit without a version", head + run + edit + `"outcome":"ok"}` + "\n", "h.jsonl:3: call: version: missing on a successful call"},
		{"edit without an expected version", head + run + strings.Replace(edit, `"expected_version":"1",`, "", 1) + `"outcome":"ok","version":"2"}` + "\n", "h.jsonl:3: call: expected_version: missing on a write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(context.Background(), strings.NewReader(tc.input), "h.jsonl")
			var ie *InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want one starting %q", err, tc.want)
			}
		})
	}
	// What format 2 reads that format 1's reader refused: a conflict
	// without a current version, digest and opaque versions, a fault kind
	// this notesbench does not know, an info kind it does not know.
	good := strings.Replace(head+run, `"counter"`, `"digest"`, 1) +
		edit + `"outcome":"fail","error_kind":"conflict"}` + "\n" +
		edit + `"outcome":"info","error_kind":"partition"}` + "\n" +
		`{"format_version":2,"kind":"fault","run":"r","fault":"clock-skew","start_ns":1,"end_ns":1}` + "\n" +
		`{"format_version":2,"kind":"end","runs":1,"calls":2,"faults":1}` + "\n"
	h, err := Read(context.Background(), strings.NewReader(good), "h.jsonl")
	if err != nil || h.Cut || h.Runs[0].Header.Variant.VersionFormat != contract.FormatDigest || !h.Runs[0].Calls[0].IsConflict() {
		t.Errorf("good history: %v %+v", err, h)
	}
	if _, err := Read(context.Background(), strings.NewReader(strings.Replace(good, `"digest"`, `"opaque"`, 1)), "h.jsonl"); err != nil {
		t.Errorf("opaque versions: %v", err)
	}
	// A server whose create and source replies name no version (a profile
	// that extracts none): the calls read, sent with no expected version.
	created := head + run +
		`{"format_version":2,"kind":"call","run":"r","editor":"c","tool":"create_note_tab","note":"n","idempotency_key":"k1","tab_type":"sheet","label":"S","outcome":"ok","tab_id":"S"}` + "\n" +
		`{"format_version":2,"kind":"call","run":"r","editor":"c","tool":"add_note_source","note":"n","idempotency_key":"k2","url":"https://a.example","outcome":"ok","source_id":"https://a.example"}` + "\n"
	if h, err := Read(context.Background(), strings.NewReader(created), "h.jsonl"); err != nil || len(h.Runs[0].Calls) != 2 {
		t.Errorf("creates without versions: %v", err)
	}
}

// A history of format 2 without its end line was cut short: Read returns
// what it holds and says so, dropping a last line cut in the middle. One
// with its end line and no run is whole. A merged history is cut short when
// a part of it was.
func TestReadCutShort(t *testing.T) {
	whole := func(runs ...string) []byte {
		w := NewWriter(Header{Experiment: "race"})
		for _, name := range runs {
			rec, _ := Record(w, RunHeader{Run: name}, func() int64 { return 0 })
			rec.Session(&stub{version: 1}, "claude").ReadNoteTab(context.Background(), "n", "markdown")
			rec.End()
		}
		var buf bytes.Buffer
		w.WriteTo(&buf)
		return buf.Bytes()
	}
	full := string(whole("r1", "r2"))
	noEnd := full[:strings.LastIndex(strings.TrimSuffix(full, "\n"), "\n")+1]
	headOnly := string(whole())
	for _, tc := range []struct {
		name  string
		input string
		cut   bool
		runs  int
		calls int
		lines int
	}{
		{"whole", full, false, 2, 2, 6},
		{"no end line", noEnd, true, 2, 2, 5},
		{"cut in a line", noEnd[:len(noEnd)-30], true, 2, 1, 4},
		{"cut after a line's last brace", strings.TrimSuffix(noEnd, "\n"), true, 2, 2, 5},
		{"only its header and end", headOnly, false, 0, 0, 2},
		{"only its header", headOnly[:strings.Index(headOnly, "\n")+1], true, 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Read(context.Background(), strings.NewReader(tc.input), "h.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			for _, r := range h.Runs {
				calls += len(r.Calls)
			}
			if h.Cut != tc.cut || len(h.Runs) != tc.runs || calls != tc.calls || h.Lines != tc.lines {
				t.Errorf("cut %v, %d runs, %d calls, %d lines; want %v, %d, %d, %d", h.Cut, len(h.Runs), calls, h.Lines, tc.cut, tc.runs, tc.calls, tc.lines)
			}
		})
	}

	merge := func(data ...[]byte) *History {
		t.Helper()
		var out bytes.Buffer
		if err := Merge(context.Background(), &out, []string{"h1", "h2"}, data); err != nil {
			t.Fatal(err)
		}
		h, err := Read(context.Background(), &out, "merged")
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return h
	}
	if h := merge(whole("a"), whole("b")); h.Cut || len(h.Runs) != 2 {
		t.Errorf("two whole histories merged: cut %v, %d runs", h.Cut, len(h.Runs))
	}
	if h := merge([]byte(noEnd[:len(noEnd)-30]), whole("b")); !h.Cut || len(h.Runs) != 3 {
		t.Errorf("a history cut short merged with a whole one: cut %v, %d runs", h.Cut, len(h.Runs))
	}
	if h := merge(whole("b"), []byte(noEnd)); !h.Cut {
		t.Error("a whole history merged with one cut short: not cut")
	}
}

// A notesbench result (an audit's, an experiment's, check's own) is said to be
// one, not a history, whatever its layout: read from its first member, no
// further than a few KiB past the first line. Anything else that is no
// history is still the line that is wrong.
func TestReadResult(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"indented", "{\n  \"experiment\": \"audit\",\n  \"subject\": {}\n}\n", "audit.json: a notesbench result (audit), not a history: check reads the files --history writes"},
		{"one line", `{"experiment":"race","config":{}}` + "\n", "audit.json: a notesbench result (race), not a history"},
		{"no final newline", `{"experiment":"check"}`, "audit.json: a notesbench result (check), not a history"},
		{"another object", "{\n  \"name\": \"x\"\n}\n", "audit.json:1: malformed record"},
		{"experiment not first", `{"kind":"x","experiment":"race"}` + "\n", "audit.json:1: format_version missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(context.Background(), strings.NewReader(tc.input), "audit.json")
			var ie *InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%v, want %s", err, tc.want)
			}
		})
	}
	// An object whose first member never comes: the read stops.
	endless := &counting{r: io.MultiReader(strings.NewReader("{\n"), &spaces{n: 64 * MaxLine})}
	if _, err := Read(context.Background(), endless, "big.json"); err == nil || !strings.HasPrefix(err.Error(), "big.json:1: malformed record") {
		t.Errorf("an endless object: %v", err)
	}
	if endless.n > 1<<20 {
		t.Errorf("read %d bytes of an endless object", endless.n)
	}
}

// spaces reads n spaces, then EOF.
type spaces struct{ n int }

func (s *spaces) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), s.n)
	for i := range n {
		p[i] = ' '
	}
	s.n -= n
	return n, nil
}

// counting counts the bytes read through it.
type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// Two texts that differ only in blank lines and trailing blanks have one
// digest; any other difference, and an empty text, another.
func TestTextDigest(t *testing.T) {
	a := TextDigest("claude-0\nhuman-0")
	for _, same := range []string{"claude-0\nhuman-0\n", "\nclaude-0\n\nhuman-0", "claude-0 \r\nhuman-0\t\n"} {
		if TextDigest(same) != a {
			t.Errorf("%q has another digest than %q", same, "claude-0\nhuman-0")
		}
	}
	for _, other := range []string{"human-0\nclaude-0", "claude-0", "claude-0\nhuman-1", ""} {
		if TextDigest(other) == a {
			t.Errorf("%q has the digest of %q", other, "claude-0\nhuman-0")
		}
	}
	if EmptyDigest != TextDigest("\n \n") {
		t.Error("a text of blank lines is not an empty document")
	}
}

// The server's tools a run names in its header are read back as written,
// and a run without them reads back without them.
func TestServerToolsRoundTrip(t *testing.T) {
	w := NewWriter(Header{Experiment: "race"})
	tools := map[string]string{"edit_note_tab": "write_file", "read_note_tab": "read_text_file"}
	for name, st := range map[string]map[string]string{"profiled": tools, "native": nil} {
		rec, err := Record(w, RunHeader{Run: name, ServerTools: st}, func() int64 { return 0 })
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
	h, err := ReadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Runs) != 2 {
		t.Fatalf("%d runs read back, want 2", len(h.Runs))
	}
	for _, r := range h.Runs {
		want := map[string]string(nil)
		if r.Header.Run == "profiled" {
			want = tools
		}
		if !maps.Equal(r.Header.ServerTools, want) || (want == nil) != (r.Header.ServerTools == nil) {
			t.Errorf("run %s: server tools %v, want %v", r.Header.Run, r.Header.ServerTools, want)
		}
	}
}

// A call that failed because the document is gone reads back as a fail of
// kind gone; the same kind on an info call is refused.
func TestGoneIsAKindOfFail(t *testing.T) {
	base := Call{Run: "r", Editor: "claude", Tool: "read_note_tab", Note: "n"}
	fail, info := base, base
	fail.Outcome, fail.ErrorKind = contract.Fail, contract.KindGone
	info.Outcome, info.ErrorKind = contract.Info, contract.KindGone
	if err := checkOutcome(fail); err != nil {
		t.Errorf("a gone fail: %v", err)
	}
	if err := checkOutcome(info); err == nil || !strings.Contains(err.Error(), "gone is a kind of fail") {
		t.Errorf("a gone info: %v", err)
	}
}

// The histories a command names are read in order, "-" from standard input
// once; a read of standard input that never ends is left when ctx ends.
func TestReadAll(t *testing.T) {
	head := `{"format_version":1,"kind":"history","experiment":"race"}` + "\n"
	path := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(path, []byte(head), 0o644)
	hs, err := ReadAll(context.Background(), strings.NewReader(head), []string{path, "-"})
	if err != nil || len(hs) != 2 || hs[0].File != path || hs[1].File != "standard input" {
		t.Fatalf("a file and standard input: %v %+v", err, hs)
	}
	if _, err := ReadAll(context.Background(), strings.NewReader(head), []string{"-", path, "-"}); err == nil || err.Error() != "-: standard input is named twice" {
		t.Errorf("standard input twice: %v", err)
	}
	if _, err := ReadAll(context.Background(), nil, []string{path, filepath.Join(t.TempDir(), "missing.jsonl")}); err == nil || !strings.HasSuffix(err.Error(), "missing.jsonl: no such file or directory") {
		t.Errorf("a missing file: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	never, w := io.Pipe()
	defer w.Close() // ends the read left behind
	go cancel()
	if _, err := ReadAll(ctx, never, []string{"-"}); !errors.Is(err, context.Canceled) {
		t.Errorf("standard input that never ends: %v", err)
	}
}

// A fault is recorded from when it began to when it ended, on the run's
// clock, with its process and what was done; one that ends after the run
// did is left out.
func TestFaultBegan(t *testing.T) {
	now := int64(0)
	w := NewWriter(Header{Experiment: "crash"})
	rec, err := Record(w, RunHeader{Run: "a"}, func() int64 { now += 10; return now })
	if err != nil {
		t.Fatal(err)
	}
	ended := rec.FaultBegan(FaultKill, 42)
	late := rec.FaultBegan(FaultPause, 43)
	ended("killed, started again")
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	late("continued")
	got := readBack(t, w)
	faults := got.Runs[0].Faults
	if len(faults) != 1 || faults[0].Kind != FaultKill || faults[0].PID != 42 || faults[0].Detail != "killed, started again" || faults[0].Start != 10 || faults[0].End <= faults[0].Start {
		t.Errorf("faults %+v: want the kill alone, from 10 to later, pid 42", faults)
	}
}

// readBack writes w's history and reads it back, as notesbench check would.
func readBack(t *testing.T, w *Writer) *History {
	t.Helper()
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := Read(context.Background(), &buf, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return h
}
