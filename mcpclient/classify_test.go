package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/sim"
)

// rowServer is a server in the shape of an SQL server's tools: a document
// is a row with a numeric version; select_row answers the row, and
// update_row writes it where the version matches, answering how many rows
// changed — 0 for a stale version, which is no error result. locked makes
// the first calls of update_row answer "database is locked" as an error.
type rowServer struct {
	mu   sync.Mutex
	rows map[string]*row
	// version is the first version of a row: large enough that a float64
	// would not hold it.
	version int64
	// structuredOnly answers select_row with structured content alone.
	structuredOnly bool
	// locked is how many update_row calls that write something answer
	// "database is locked" (a write of nothing is notesbench's probe).
	locked int
	// refuse makes every update_row that writes something refuse with "no
	// such table".
	refuse bool
}

type row struct {
	content string
	version int64
}

func (s *rowServer) dialer(t *testing.T) Dialer {
	srv := mcp.NewServer(&mcp.Implementation{Name: "rows", Version: "test"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&mcp.Tool{Name: "create_row", InputSchema: obj}, s.create)
	srv.AddTool(&mcp.Tool{Name: "select_row", InputSchema: obj}, s.selectRow)
	srv.AddTool(&mcp.Tool{Name: "update_row", InputSchema: obj}, s.update)
	return func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err == nil {
			t.Cleanup(func() { ss.Close() })
		}
		return ct, err
	}
}

func args(req *mcp.CallToolRequest) map[string]any {
	var a map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &a)
	return a
}

func rowResult(isErr bool, js string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: js}}}
}

func (s *rowServer) create(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rows == nil {
		s.rows = map[string]*row{}
	}
	s.rows[args(req)["id"].(string)] = &row{version: s.version}
	return rowResult(false, `{"changes":1}`), nil
}

func (s *rowServer) selectRow(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.rows[args(req)["id"].(string)]
	if !ok {
		return rowResult(true, "no such row"), nil
	}
	b, _ := json.Marshal(map[string]any{"rows": []any{map[string]any{"content": r.content, "version": r.version}}})
	if s.structuredOnly {
		var v any
		_ = json.Unmarshal(b, &v) // as a client SDK decodes it: numbers to float64
		return &mcp.CallToolResult{StructuredContent: v, Content: []mcp.Content{}}, nil
	}
	return rowResult(false, string(b)), nil
}

func (s *rowServer) update(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := args(req)
	if s.refuse && a["content"] != "" {
		return rowResult(true, "SQLITE_ERROR: no such table: docs"), nil
	}
	if s.locked > 0 && a["content"] != "" {
		s.locked--
		return rowResult(true, "SQLITE_BUSY: database is locked"), nil
	}
	r := s.rows[a["id"].(string)]
	// The version arrives in the SQL text: "… WHERE version = N".
	sql := a["sql"].(string)
	want := sql[strings.LastIndex(sql, " ")+1:]
	if r == nil || want != jsonInt(r.version) {
		return rowResult(false, `{"changes":0}`), nil
	}
	r.content, r.version = a["content"].(string), r.version+1
	return rowResult(false, `{"changes":1}`), nil
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// rowProfile is the profile of rowServer: conflicts are replies that changed
// no row, recognized by a number; equals is what the test gives.
func rowProfile(t *testing.T, equals string, extra string) *profile.Profile {
	t.Helper()
	p, err := profile.Parse([]byte(`{
  "format_version": 2,
  "name": "rows",
  "setup": {"document": "{run}-{note}", "create": [{"tool": "create_row", "arguments": {"id": "{document}"}}]},
  "read": {"tool": "select_row", "arguments": {"id": "{document}"},
           "content": {"pointer": "/rows/0/content"}, "version": {"pointer": "/rows/0/version"}},
  "write": {"tool": "update_row", "arguments": {"id": "{document}", "content": "{content}", "sql": "UPDATE docs SET content = ? WHERE version = {expected_version}"},
            "version_check": true, "version": {"pointer": "/changes"}},
  "conflict": {"is_error": false, "pointer": "/changes", "equals": `+equals+`}`+extra+`
}`), "rows.json")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rowTarget(t *testing.T, s *rowServer, p *profile.Profile) *Target {
	t.Helper()
	tg, err := New(ctx, "rows", s.dialer(t), Options{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, "target", tg)
	return tg
}

// A conflict recognized by a number: equals 0 matches the number 0 (it
// compares JSON values), and the version the read gave, 19 digits long,
// goes back to the server as written.
func TestConflictByNumber(t *testing.T) {
	s := &rowServer{version: 1733000000000000123}
	tg := rowTarget(t, s, rowProfile(t, `0`, ""))
	b, err := tg.Open(ctx, contract.RunSpec{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, "run", b)
	if err := b.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	se, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read, err := se.ReadNoteTab(ctx, "note-1", "markdown")
	if err != nil || read.Version != "1733000000000000123" {
		t.Fatalf("read %+v %v: want the version as written", read, err)
	}
	if _, err := se.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: read.Version, Operation: contract.OpReplaceText, Text: "a"}); err != nil {
		t.Fatalf("a write with the version read: %v", err)
	}
	_, err = se.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: read.Version, Operation: contract.OpReplaceText, Text: "b"})
	var ce *contract.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("a stale write: %v, want a conflict", err)
	}
}

// A matcher whose value can never equal what its pointer finds — the string
// "0" where the reply holds the number 0 — says so on the first reply it
// sees, naming the field: the profile's trial write before any run, where it
// used to match nothing and let a race report a guarded server losing lines
// without a conflict. During a run, the same is a fault of the profile's
// that stops the run, not an outcome to count.
func TestMatcherThatCannotMatch(t *testing.T) {
	s := &rowServer{version: 1}
	_, err := New(ctx, "rows", s.dialer(t), Options{Profile: rowProfile(t, `"0"`, "")})
	want := `target rows: profile rows: conflict.equals: the string "0" can never match: conflict.pointer finds the number 1 in the reply "{\"changes\":1}" (tried on a fresh document before any run)`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}

	// Behind the trial, the run: the matcher meets the number in a reply.
	tg := rowTarget(t, s, rowProfile(t, `0`, ""))
	tg.prof.p = rowProfile(t, `"0"`, "")
	c := race.Default()
	c.Seeds, c.Edits, c.Pause = []uint64{1}, 5, "0"
	c.ClaudeThink, c.HumanThink = sim.Dist{Max: time.Millisecond}, sim.Dist{Max: time.Millisecond}
	c.Modes, c.VersionFormat = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}, contract.FormatOpaque
	_, err = c.Run(ctx, sim.Runtime{Target: tg}, c.Seeds)
	if err == nil || !strings.Contains(err.Error(), `conflict.equals: the string "0" can never match`) || !contract.Stops(err) {
		t.Fatalf("a run: %v", err)
	}
}

// A structured-only number beyond 2^53 cannot be known to its last digit:
// that is an error, never a version with its last digits changed.
func TestStructuredVersionBeyondFloat(t *testing.T) {
	s := &rowServer{version: 1733000000000000123, structuredOnly: true}
	_, err := New(ctx, "rows", s.dialer(t), Options{Profile: rowProfile(t, `0`, "")})
	if err == nil || !strings.Contains(err.Error(), "read.version: a version at pointer /rows/0/version found the number 1.733e+18 in the structured content alone, which cannot hold it to its last digit") {
		t.Fatalf("%v", err)
	}
}

// Error classes: "database is locked" is transient (the same call is sent
// again, a few times, then it is an outcome of kind busy); "no such table"
// is a refusal (a fail); any other error result an outcome nobody knows.
func TestErrorClasses(t *testing.T) {
	classes := `, "errors": [
    {"pattern": "database is locked", "class": "transient"},
    {"pattern": "no such table", "class": "refused"}]`
	for _, tc := range []struct {
		name    string
		server  func() *rowServer
		classes string
		kind    string
	}{
		{"transient, then it lands", func() *rowServer { return &rowServer{version: 1, locked: 2} }, classes, ""},
		{"transient for good", func() *rowServer { return &rowServer{version: 1, locked: 100} }, classes, contract.KindBusy},
		{"refused", func() *rowServer { return &rowServer{version: 1, refuse: true} }, classes, contract.KindRefused},
		{"unclassified", func() *rowServer { return &rowServer{version: 1, refuse: true} }, "", contract.KindServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := rowTarget(t, tc.server(), rowProfile(t, `0`, tc.classes))
			b, _ := tg.Open(ctx, contract.RunSpec{Name: "e"})
			closeAtEnd(t, "run", b)
			if err := b.CreateNote(ctx, "note-1"); err != nil {
				t.Fatal(err)
			}
			se, _ := b.Session(ctx)
			_, err := se.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1", Operation: contract.OpReplaceText, Text: "a"})
			if got := contract.KindOf(err); got != tc.kind {
				t.Fatalf("kind %q (%v), want %q", got, err, tc.kind)
			}
		})
	}
}

// A patch anchors on lines that occur once in the base: with the line it
// anchors on repeated above, it grows until what it replaces is unique, so
// that a tool that replaces the first match replaces the right one.
func TestPatchIsUnique(t *testing.T) {
	for _, tc := range []struct{ base, text, old, repl string }{
		{"a\nb", "a\nb\nc", "b", "b\nc"},
		{"a\nb\na", "a\nb\na\nc", "b\na", "b\na\nc"},
		{"x\nx\nx", "x\nx\nx\ny", "", ""},
	} {
		old, repl, ok := patch(tc.base, tc.text)
		if tc.old == "" {
			if ok && strings.Count(tc.base, old) != 1 {
				t.Errorf("patch(%q, %q) = %q, %q: not unique", tc.base, tc.text, old, repl)
			}
			continue
		}
		if !ok || old != tc.old || repl != tc.repl || strings.Count(tc.base, old) != 1 {
			t.Errorf("patch(%q, %q) = %q, %q, %v; want %q, %q", tc.base, tc.text, old, repl, ok, tc.old, tc.repl)
		}
	}
}

// A transport failure is said by its cause, not by the SDK's layers of
// wrapping around it, and a call the transport rejected is no answer of the
// server's.
func TestTransportFailureInOneLine(t *testing.T) {
	cause := errors.New("connect: connection refused")
	rejected := &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}
	err := fmt.Errorf("calling %q: %w", "tools/call", fmt.Errorf("sending %q: %w: %w", "tools/call", rejected, cause))
	if got := rootCause(err); got != "connect: connection refused" {
		t.Errorf("rootCause = %q", got)
	}
	if !localCode(rejected.Code) || localCode(jsonrpc.CodeInvalidParams) {
		t.Error("the transport's own codes are not told from a server's")
	}
}
