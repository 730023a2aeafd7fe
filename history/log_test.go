package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// note is a contract.Session (and contract.Person) over one Note held in
// memory, its version a counter under guard note.
type note struct {
	version int
	text    string
	tabs    []contract.TabInfo
}

func newNote() *note {
	return &note{version: 1, tabs: []contract.TabInfo{{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Note"},
		{TabID: "files", Type: contract.TypeFiles, Label: "Files", Position: 1},
		{TabID: "sources", Type: contract.TypeSources, Label: "Sources", Position: 2}}}
}

func (n *note) v() contract.Version { return contract.Version(strconv.Itoa(n.version)) }

func (n *note) ListNoteTabs(_ context.Context, noteID string) (contract.TabList, error) {
	if noteID != "n" {
		return contract.TabList{}, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	return contract.TabList{NoteID: noteID, Version: n.v(), Tabs: append([]contract.TabInfo{}, n.tabs...)}, nil
}

func (n *note) ReadNoteTab(_ context.Context, noteID, tabID string) (contract.TabContent, error) {
	return contract.TabContent{NoteID: noteID, TabID: tabID, Type: contract.TypeMarkdown, Version: n.v(), Text: n.text}, nil
}

func (n *note) ReadSheetRange(context.Context, contract.RangeRequest) (contract.SheetRange, error) {
	return contract.SheetRange{Version: n.v()}, nil
}

func (n *note) ListNoteAttachments(context.Context, contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	return contract.AttachmentPage{Items: []contract.Attachment{}}, nil
}

func (n *note) EditNoteTab(_ context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if string(req.ExpectedVersion) != string(n.v()) {
		return contract.EditResult{}, &contract.ConflictError{Current: n.v()}
	}
	n.version++
	n.text = req.Text
	return contract.EditResult{Version: n.v()}, nil
}

func (n *note) CreateNoteTab(context.Context, contract.CreateRequest) (contract.CreateResult, error) {
	return contract.CreateResult{}, errors.New("not here")
}

func (n *note) AddNoteSource(context.Context, contract.SourceRequest) (contract.SourceResult, error) {
	return contract.SourceResult{}, errors.New("not here")
}

func (n *note) MoveTab(context.Context, string, string, int) error { n.version++; return nil }
func (n *note) RenameTab(context.Context, string, string, string) error {
	n.version++
	return nil
}
func (n *note) AddTab(context.Context, string, contract.TabType, string) (contract.TabInfo, error) {
	return contract.TabInfo{}, errors.New("not here")
}
func (n *note) SetCells(context.Context, string, string, string, int, int, [][]any) error {
	return errors.New("not here")
}
func (n *note) SetText(_ context.Context, _ string, text string) error {
	n.version++
	n.text = text
	return nil
}
func (n *note) Close() error { return nil }

// newLog records a run into a Log in a temporary folder, with a clock that
// ticks by 10.
func newLog(t *testing.T) (*Recorder, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var now int64
	l, err := CreateLog(path, Header{Experiment: ExperimentServe, Command: "notesbench serve --history h.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Record(l, RunHeader{Run: "serve", Policy: "person every=1s,actions=append"}, func() int64 { now += 10; return now })
	if err != nil {
		t.Fatal(err)
	}
	return rec, path
}

func readLog(t *testing.T, path string) *History {
	t.Helper()
	h, err := ReadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A served history says what a server can tell of what each write meant:
// what it added to and dropped from its session's last view, and the older
// view its content came from when it sent a fresher version (a client that
// refreshes after a conflict); a client's own committed write is a view.
// The Log is readable line by line before it ends (cut short), and whole,
// with final states and its end line, once it has.
func TestLogRecordsWhatAServerSees(t *testing.T) {
	ctx := context.Background()
	l, path := newLog(t)
	n := newNote()
	person := l.Client(PersonEditor, "", PersonSession).Session(n)
	agent := l.Client("refresh-go", "1.0", 3).Session(n)

	agent.ReadNoteTab(ctx, "n", "markdown") // v1, empty
	Intend(person, Intent{Mark: "person-1"})
	person.ReadNoteTab(ctx, "n", "markdown")
	person.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "p1",
		Operation: contract.OpReplaceText, Text: "person-1"}) // v2
	Intend(person, Intent{})
	// The agent's write, built on v1, conflicts; it re-reads (v2) and sends
	// its old text with the fresh version: it drops the person's line.
	agent.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "a1",
		Operation: contract.OpReplaceText, Text: "\nagent-1"})
	agent.ReadNoteTab(ctx, "n", "markdown")
	agent.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: "2", IdempotencyKey: "a2",
		Operation: contract.OpReplaceText, Text: "\nagent-1"}) // v3
	// Its next line builds on its own write, without a read.
	agent.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: "3", IdempotencyKey: "a3",
		Operation: contract.OpReplaceText, Text: "agent-1\nagent-2"}) // v4
	agent.ListNoteTabs(ctx, "n")
	person.(contract.Person).MoveTab(ctx, "n", "files", 0) // v5

	mid := readLog(t, path)
	if !mid.Cut || len(mid.Runs) != 1 || len(mid.Runs[0].Calls) != 9 {
		t.Fatalf("before Close: cut %v, %d runs", mid.Cut, len(mid.Runs))
	}
	if err := l.Close(ctx, n); err != nil {
		t.Fatal(err)
	}
	h := readLog(t, path)
	if h.Cut || h.Header.Experiment != ExperimentServe || len(h.Runs) != 1 || len(h.Runs[0].Finals) != 1 {
		t.Fatalf("after Close: %+v", h)
	}
	calls := h.Runs[0].Calls
	type seen struct {
		editor, client string
		session        int
		tool           string
		outcome        contract.Outcome
		read, base     string
		adds, drops    []string
		intent         string
	}
	var got []seen
	for _, c := range calls {
		got = append(got, seen{c.Editor, c.ClientVersion, c.Session, c.Tool, c.Outcome, c.ReadVersion, c.BaseVersion, c.Adds, c.Drops, c.Intent})
	}
	want := []seen{
		{"refresh-go", "1.0", 3, contract.ToolReadNoteTab, contract.OK, "", "", nil, nil, ""},
		{"person", "", 0, contract.ToolReadNoteTab, contract.OK, "", "", nil, nil, ""},
		{"person", "", 0, contract.ToolEditNoteTab, contract.OK, "1", "", []string{"person-1"}, nil, "person-1"},
		{"refresh-go", "1.0", 3, contract.ToolEditNoteTab, contract.Fail, "1", "", []string{"agent-1"}, nil, ""},
		{"refresh-go", "1.0", 3, contract.ToolReadNoteTab, contract.OK, "", "", nil, nil, ""},
		{"refresh-go", "1.0", 3, contract.ToolEditNoteTab, contract.OK, "2", "1", []string{"agent-1"}, []string{"person-1"}, ""},
		{"refresh-go", "1.0", 3, contract.ToolEditNoteTab, contract.OK, "3", "", []string{"agent-2"}, nil, ""},
		{"refresh-go", "1.0", 3, contract.ToolListNoteTabs, contract.OK, "", "", nil, nil, ""},
		{"person", "", 0, ext.ToolMoveTab, contract.OK, "", "", nil, nil, ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls:\n%+v\nwant\n%+v", got, want)
	}
	if c := calls[7]; len(c.Listed) != 3 || c.Listed[1].TabID != "files" {
		t.Errorf("listing: %+v", c.Listed)
	}
	if c := calls[8]; c.Position == nil || *c.Position != 0 || c.Tab != "files" || c.Version != "" {
		t.Errorf("move: %+v", c)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Invoke <= calls[i-1].Invoke || calls[i].Return <= calls[i].Invoke {
			t.Errorf("times of call %d: %d-%d after %d", i, calls[i].Invoke, calls[i].Return, calls[i-1].Invoke)
		}
	}
	if f := h.Runs[0].Finals[0]; f.Note != "n" || f.Version != "5" || f.Text != "agent-1\nagent-2" {
		t.Errorf("final: %+v", f)
	}
	if err := l.Close(ctx, n); err == nil {
		t.Error("a second Close: no error")
	}
	if b, _ := os.ReadFile(path); !strings.HasSuffix(string(b), `{"format_version":2,"kind":"end","runs":1,"calls":9,"faults":0}`+"\n") {
		t.Errorf("the end line:\n%s", b)
	}
}

// A write appended onto the last line of a text that does not end with a
// newline (the person's appends leave none) was built on that text, the
// fresh version it sent, not on an older view that lacks the line: line by
// line it drops the line it appended onto, which the older view never had.
// The check once said such a text was "built on version 2".
func TestLogAppendOntoALastLineWithoutNewline(t *testing.T) {
	ctx := context.Background()
	l, path := newLog(t)
	n := newNote()
	person := l.Client(PersonEditor, "", PersonSession).Session(n)
	agent := l.Client("appender", "1.0", 1).Session(n)
	write := func(s contract.Session, expected contract.Version, key, text string) {
		t.Helper()
		if _, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: expected, IdempotencyKey: key,
			Operation: contract.OpReplaceText, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	write(agent, "1", "a1", "agent-1\n") // v2, which the agent's next write does not build on
	person.ReadNoteTab(ctx, "n", "markdown")
	write(person, "2", "p1", "agent-1\nperson-1") // v3, no newline at its end
	read, _ := agent.ReadNoteTab(ctx, "n", "markdown")
	write(agent, "3", "a2", read.Text+"agent-2\n") // v4: "agent-1\nperson-1agent-2\n"
	if err := l.Close(ctx, n); err != nil {
		t.Fatal(err)
	}
	calls := readLog(t, path).Runs[0].Calls
	c := calls[len(calls)-1]
	if c.Editor != "appender" || c.ExpectedVersion != "3" || c.ReadVersion != "3" || c.BaseVersion != "" {
		t.Errorf("the append onto the last line: %s, read_version %q, base_version %q; want built on 3, its expected version", c, c.ReadVersion, c.BaseVersion)
	}
	if !reflect.DeepEqual(c.Adds, []string{"person-1agent-2"}) || !reflect.DeepEqual(c.Drops, []string{"person-1"}) {
		t.Errorf("adds %q, drops %q", c.Adds, c.Drops)
	}
}

// A write is said to be built on an older view than the version it sends
// only when its client was told that version: one client's stateless
// requests over two connections are two sessions, and a write over one of
// a version read over the other was built on what was read there, which
// the first never saw. The first session's older view kept every line of
// it (it held none) and was once named its base.
func TestLogBaseOnlyOfAVersionTold(t *testing.T) {
	ctx := context.Background()
	l, path := newLog(t)
	n := newNote()
	person := l.Client(PersonEditor, "", PersonSession).Session(n)
	first, second := l.StatelessClient("agent", "1.0", 1).Session(n), l.StatelessClient("agent", "1.0", 2).Session(n)
	first.ReadNoteTab(ctx, "n", "markdown") // v1, empty
	if _, err := person.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "p1",
		Operation: contract.OpReplaceText, Text: "person-1"}); err != nil {
		t.Fatal(err)
	}
	read, _ := second.ReadNoteTab(ctx, "n", "markdown") // v2
	if _, err := first.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: read.Version, IdempotencyKey: "a1",
		Operation: contract.OpReplaceText, Text: read.Text + "\nagent-1"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx, n); err != nil {
		t.Fatal(err)
	}
	calls := readLog(t, path).Runs[0].Calls
	c := calls[len(calls)-1]
	if c.Session != 1 || !c.Stateless || c.ExpectedVersion != "2" || c.ReadVersion != "1" || c.BaseVersion != "" {
		t.Errorf("%s: stateless %v, read_version %q, base_version %q; want no base: its session was never told 2", c, c.Stateless, c.ReadVersion, c.BaseVersion)
	}
	for _, c := range calls {
		if c.Stateless != (c.Editor == "agent") {
			t.Errorf("%s: stateless %v; want the agent's calls alone marked", c, c.Stateless)
		}
	}
}

// A Note nobody made has no final state; without a session to read them,
// no Note has one; a call recorded after Close is not written.
func TestLogCloseWithoutFinals(t *testing.T) {
	ctx := context.Background()
	l, path := newLog(t)
	n := newNote()
	s := l.Client("c", "", 1).Session(n)
	s.ListNoteTabs(ctx, "nobody")
	if err := l.Close(ctx, n); err != nil {
		t.Fatal(err)
	}
	s.ListNoteTabs(ctx, "n")
	h := readLog(t, path)
	if h.Cut || len(h.Runs[0].Calls) != 1 || len(h.Runs[0].Finals) != 0 {
		t.Errorf("cut %v, %d calls, %d finals", h.Cut, len(h.Runs[0].Calls), len(h.Runs[0].Finals))
	}

	l, path = newLog(t)
	l.Client("c", "", 1).Session(n).ListNoteTabs(ctx, "n")
	if err := l.Close(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if h := readLog(t, path); h.Cut || len(h.Runs[0].Finals) != 0 {
		t.Errorf("without a session: cut %v, %d finals", h.Cut, len(h.Runs[0].Finals))
	}
}

// CreateLog never replaces what a file holds: it is refused, left as it
// was; an empty file is taken, for one run.
func TestCreateLogRefusesAFileThatHoldsSomething(t *testing.T) {
	dir := t.TempDir()
	held, empty := filepath.Join(dir, "h.jsonl"), filepath.Join(dir, "empty.jsonl")
	const recorded = `{"format_version":2,"kind":"history","experiment":"serve"}` + "\n"
	if err := os.WriteFile(held, []byte(recorded), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	clock := func() int64 { return 1 }
	if _, err := CreateLog(held, Header{Experiment: ExperimentServe}); err == nil ||
		err.Error() != held+" is not empty: a log never replaces what was recorded" {
		t.Errorf("a file that holds a history: %v", err)
	}
	if b, _ := os.ReadFile(held); string(b) != recorded {
		t.Errorf("the file was changed: %q", b)
	}
	l, err := CreateLog(empty, Header{Experiment: ExperimentServe})
	if err != nil {
		t.Fatalf("an empty file: %v", err)
	}
	rec, err := Record(l, RunHeader{Run: "serve"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Record(l, RunHeader{Run: "again"}, clock); err == nil || err.Error() != `history: run "again": a log holds one run` {
		t.Errorf("a second run in one log: %v", err)
	}
	if err := rec.Close(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if h := readLog(t, empty); h.Cut || len(h.Runs) != 1 {
		t.Errorf("the log in the empty file: %+v", h)
	}
}

// The reader refuses a served call whose person's action names no tool it
// knows, and takes one without a version.
func TestReadPersonActions(t *testing.T) {
	head := `{"format_version":2,"kind":"history","experiment":"serve"}` + "\n" +
		`{"format_version":2,"kind":"run","run":"serve","variant":{"guard":"note","version_format":"counter","order":"key-first"}}` + "\n"
	ok := head + `{"format_version":2,"kind":"call","run":"serve","editor":"person","session":0,"tool":"notesbench_rename_tab","note":"n","tab":"slides-4-x","label":"Plan","invoke_ns":1,"return_ns":2,"outcome":"ok"}` + "\n"
	h, err := Read(context.Background(), strings.NewReader(ok), "h.jsonl")
	if err != nil || len(h.Runs[0].Calls) != 1 || !h.Runs[0].Calls[0].IsPersonAction() || h.Runs[0].Calls[0].IsWrite() {
		t.Fatalf("%v %+v", err, h)
	}
	bad := head + `{"format_version":2,"kind":"call","run":"serve","editor":"person","session":0,"tool":"notesbench_delete_tab","note":"n","invoke_ns":1,"return_ns":2,"outcome":"ok"}` + "\n"
	if _, err := Read(context.Background(), strings.NewReader(bad), "h.jsonl"); err == nil || err.Error() != `h.jsonl:3: call: tool: unknown tool "notesbench_delete_tab"` {
		t.Errorf("%v", err)
	}
}
