package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/store"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperDBEnv) != "" {
		os.Exit(helperServer())
	}
	goleak.VerifyTestMain(m)
}

var ctx = context.Background()

// newServer makes a server of a fresh in-memory store, with the Note note-1.
// The caller closes it (closeOnCleanup).
func newServer(t testing.TB, v contract.Variant, opts Options) *Server {
	t.Helper()
	st, err := store.Open(store.InMemory, store.Options{Guard: v.Guard, VersionFormat: v.VersionFormat, Order: v.Order})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	opts.Variant = v
	srv, err := New(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// start serves a fresh in-memory store over an in-memory transport and returns
// a connected SDK client session; both are stopped when the test ends.
func start(t testing.TB, v contract.Variant, opts Options) (*Server, *mcp.ClientSession) {
	t.Helper()
	srv := newServer(t, v, opts)
	return srv, connect(t, srv)
}

// connect connects one more client to srv; the first call of connect also
// registers srv's Close.
func connect(t testing.TB, srv *Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	ss, err := srv.mcp.Connect(sctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() { served <- ss.Wait() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		<-served
		cancel()
	})
	return cs
}

func closeOnCleanup(t testing.TB, srv *Server) {
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
}

func call(t testing.TB, cs *mcp.ClientSession, tool, args string) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	out, err := resultObject(res)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return res, out
}

// resultObject returns a tool result's structured content, which its one text
// content must hold too.
func resultObject(res *mcp.CallToolResult) (map[string]any, error) {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("structured content %s: %w", b, err)
	}
	if len(res.Content) != 1 {
		return nil, fmt.Errorf("content %v", res.Content)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !jsonEqual(text, string(b)) {
		return nil, fmt.Errorf("text content %s differs from structured content %s", text, b)
	}
	return out, nil
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func TestToolsList(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{Extensions: ExtensionsAll})
	closeOnCleanup(t, srv)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
	}
	// The published order, then the extensions.
	want := "list_note_tabs read_note_tab read_sheet_range list_note_attachments edit_note_tab create_note_tab add_note_source " +
		"notesbench_describe notesbench_create_note notesbench_move_tab notesbench_rename_tab notesbench_add_tab notesbench_set_cells notesbench_set_text"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tools %s\nwant %s", got, want)
	}
	for _, ct := range contract.Tools() {
		tl := byName[ct.Name]
		if tl.Description != ct.Description || tl.Annotations.ReadOnlyHint != ct.Annotations.ReadOnlyHint ||
			*tl.Annotations.DestructiveHint != ct.Annotations.DestructiveHint {
			t.Errorf("%s: %+v", ct.Name, tl)
		}
		schema, _ := json.Marshal(tl.InputSchema)
		if !jsonEqual(string(schema), string(ct.InputSchema)) {
			t.Errorf("%s: schema %s", ct.Name, schema)
		}
		if tl.Meta[ext.MetaKey] != nil {
			t.Errorf("%s is marked as an extension", ct.Name)
		}
	}
	for _, n := range names {
		if !strings.HasPrefix(n, ext.Prefix) {
			continue
		}
		if byName[n].Meta[ext.MetaKey] != true || !strings.Contains(byName[n].Description, "not part of the Notes contract") {
			t.Errorf("%s is not marked as an extension: %+v", n, byName[n])
		}
	}
}

func TestNoExtensionsByDefault(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 7 {
		t.Fatalf("%d tools, want the seven", len(res.Tools))
	}
}

// Contract outcomes are results with isError and the JSON layer's object;
// a success and a replay are plain results.
func TestOutcomesAreResults(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	write := `{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k1","operation":"replace_text","text":"hi"}`
	res, out := call(t, cs, "edit_note_tab", write)
	if res.IsError || out["version"] != 2.0 {
		t.Fatalf("write: %v %v", res.IsError, out)
	}
	if res, out = call(t, cs, "edit_note_tab", write); res.IsError || out["replayed"] != true {
		t.Fatalf("resend: %v %v", res.IsError, out)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k2","operation":"replace_text","text":"x"}`,
			`{"current_version":2,"error":"version_conflict"}`},
		{`{"note_id":"note-1","tab_id":"nope","expected_version":2,"idempotency_key":"k3","operation":"replace_text","text":"x"}`,
			`{"error":"not_found","field":"tab_id","id":"nope","message":"tab_id: \"nope\" not found"}`},
		{`{"note_id":"note-1","tab_id":"markdown","idempotency_key":"k4","operation":"replace_text","text":"x"}`,
			`{"error":"invalid_argument","field":"/expected_version","message":"/expected_version: required","violations":[{"keyword":"required","message":"expected_version is missing: the call must carry it","path":"/expected_version","want":""}]}`},
		// The SDK does not validate raw schemas: the contract's JSON layer does.
		{`{"note_id":"note-1","tab_id":"markdown","expected_version":2,"idempotency_key":"k5","operation":"replace_text","text":7}`,
			`{"error":"invalid_argument","field":"/text","message":"/text: type string (got number)","violations":[{"keyword":"type","message":"text is of the wrong type: want string (got number)","path":"/text","want":"string (got number)"}]}`},
	} {
		res, out := call(t, cs, "edit_note_tab", tc.args)
		got, _ := json.Marshal(out)
		if !res.IsError || !jsonEqual(string(got), tc.want) {
			t.Errorf("%s: isError %v, %s\nwant %s", tc.args, res.IsError, got, tc.want)
		}
	}
	if _, out := call(t, cs, "read_note_tab", `{"note_id":"note-1","tab_id":"markdown"}`); out["data"] != "hi" {
		t.Fatalf("refused writes changed the Note: %v", out)
	}
}

// Protocol faults are JSON-RPC errors with their codes, never code 0.
func TestProtocolFaults(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	for _, tc := range []struct {
		tool string
		args any
	}{
		{"delete_note", map[string]any{}},
		{"list_note_tabs", json.RawMessage(`[1,2]`)},
		{"list_note_tabs", json.RawMessage(`"note-1"`)},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: %v, want a JSON-RPC error %d", tc.tool, tc.args, err, jsonrpc.CodeInvalidParams)
		}
	}
}

// A Backend that fails is an internal error (-32603), not a result and not
// code 0.
func TestBackendFailureIsInternalError(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	srv.pool = newPool(failing{srv.b}, 1)
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_note_tabs", Arguments: map[string]any{"note_id": "note-1"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "disk on fire") {
		t.Fatalf("%v", err)
	}
}

type failing struct{ contract.Backend }

func (failing) Session(context.Context) (contract.Session, error) {
	return nil, errors.New("disk on fire")
}

func TestExtensionTools(t *testing.T) {
	var log bytes.Buffer
	srv, cs := start(t, contract.Variant{Guard: contract.GuardTab}, Options{Extensions: ExtensionsAll, Describe: "SQLite in memory", Version: "v9", Log: &syncWriter{w: &log}})
	closeOnCleanup(t, srv)
	_, out := call(t, cs, ext.ToolDescribe, `{}`)
	if got, _ := json.Marshal(out); !jsonEqual(string(got), `{"server":"notesbench serve v9","backend":"SQLite in memory","variant":{"guard":"tab","version_format":"counter","order":"key-first"},"person_actions":true}`) {
		t.Fatalf("describe %s", got)
	}
	if res, out := call(t, cs, ext.ToolCreateNote, `{"note_id":"note-2"}`); res.IsError || out["note_id"] != "note-2" {
		t.Fatalf("create %v", out)
	}
	if res, out := call(t, cs, ext.ToolCreateNote, `{"note_id":"note-2"}`); !res.IsError || out["field"] != "note_id" {
		t.Fatalf("create again %v", out)
	}
	if res, out := call(t, cs, ext.ToolCreateNote, `{"id":"x"}`); !res.IsError || out["field"] != "/id" {
		t.Fatalf("unknown field %v", out)
	}
	_, added := call(t, cs, ext.ToolAddTab, `{"note_id":"note-2","tab_type":"sheet","label":"S"}`)
	if added["position"] != 3.0 || added["label"] != "S" {
		t.Fatalf("add %v", added)
	}
	tab := added["tab_id"].(string)
	for _, c := range []struct{ tool, args string }{
		{ext.ToolMoveTab, fmt.Sprintf(`{"note_id":"note-2","tab_id":%q,"position":0}`, tab)},
		{ext.ToolRenameTab, fmt.Sprintf(`{"note_id":"note-2","tab_id":%q,"label":" T "}`, tab)},
		{ext.ToolSetCells, fmt.Sprintf(`{"note_id":"note-2","tab_id":%q,"start_row":1,"values":[["x",2]]}`, tab)},
		{ext.ToolSetText, `{"note_id":"note-2","text":"typed"}`},
	} {
		if res, out := call(t, cs, c.tool, c.args); res.IsError {
			t.Fatalf("%s: %v", c.tool, out)
		}
	}
	if res, out := call(t, cs, ext.ToolMoveTab, `{"note_id":"note-2","tab_id":"markdown"}`); !res.IsError || out["field"] != "/position" {
		t.Fatalf("missing position %v", out)
	}
	_, list := call(t, cs, "list_note_tabs", `{"note_id":"note-2"}`)
	first := list["tabs"].([]any)[0].(map[string]any)
	if first["tab_id"] != tab || first["label"] != "T" {
		t.Fatalf("tabs %v", list)
	}
	_, rg := call(t, cs, "read_sheet_range", fmt.Sprintf(`{"note_id":"note-2","tab_id":%q}`, tab))
	if fmt.Sprint(rg["values"]) != "[[<nil> <nil>] [x 2]]" {
		t.Fatalf("cells %v", rg["values"])
	}
	if _, md := call(t, cs, "read_note_tab", `{"note_id":"note-2","tab_id":"markdown"}`); md["data"] != "typed" {
		t.Fatalf("text %v", md)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 13 || !strings.Contains(lines[2], "session 1 notesbench_create_note") || !strings.HasSuffix(lines[2], "invalid_argument note_id") {
		t.Fatalf("log:\n%s", log.String())
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Concurrent calls on one MCP session each get a contract session: eight
// writers with the same expected version, one wins.
func TestConcurrentCallsOnOneSession(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	const n = 8
	var wg sync.WaitGroup
	results := make([]map[string]any, n)
	errs := make([]error, n)
	for i := range n {
		// t.Fatal belongs to the test's goroutine: the writers record errors.
		wg.Go(func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_note_tab", Arguments: json.RawMessage(fmt.Sprintf(
				`{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"c%d","operation":"replace_text","text":"w%d"}`, i, i))})
			if err == nil {
				results[i], err = resultObject(res)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	wins := 0
	for _, r := range results {
		if r["error"] == nil {
			wins++
		} else if r["error"] != "version_conflict" || r["current_version"] != 2.0 {
			t.Fatalf("%v", r)
		}
	}
	if wins != 1 {
		t.Fatalf("%d writers won", wins)
	}
}

// ListenAddr listens on loopback unless a host is named, and refuses a port
// that is not a number.
func TestListenAddr(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{":8765", "127.0.0.1:8765", ""},
		{":0", "127.0.0.1:0", ""},
		{"0.0.0.0:80", "0.0.0.0:80", ""},
		{"[::1]:9", "[::1]:9", ""},
		{"localhost:http", "", `port "http" is not a number from 0 to 65535`},
		{":70000", "", `port "70000" is not a number from 0 to 65535`},
		{"8765", "", "missing port in address"},
	} {
		got, err := ListenAddr(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ListenAddr(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// creatingBackend is a store whose CreateNote is refused with err, after
// creating the Note when created is set: another process that created the
// Note first, and said so in words of its own.
type creatingBackend struct {
	*store.Store
	created bool
	err     error
}

func (b *creatingBackend) CreateNote(ctx context.Context, noteID string) error {
	if b.created {
		if err := b.Store.CreateNote(ctx, noteID); err != nil {
			return err
		}
	}
	return b.err
}

// EnsureNote knows a Note exists by the store's typed answers, not by the
// words of its refusal: a creation refused because another process created
// the Note first is no error, whatever the refusal says, and a refusal that
// happens to say "exists" while the Note does not is an error.
func TestEnsureNoteByTypedErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		created bool
		err     error
		wantErr bool
	}{
		{"created by another, in other words", true, contract.Invalid("note_id", "note %q is already there", "n"), false},
		{"refused, the word exists in the reason", false, contract.Invalid("note_id", "a Note ID that exists nowhere else is wanted"), true},
		{"refused otherwise", false, errors.New("disk full"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := store.Open(store.InMemory, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			created, err := EnsureNote(ctx, &creatingBackend{Store: st, created: tc.created, err: tc.err}, "n")
			if created || (err != nil) != tc.wantErr {
				t.Fatalf("created %v, err %v; want an error: %v", created, err, tc.wantErr)
			}
		})
	}
	st, err := store.Open(store.InMemory, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, want := range []bool{true, false} {
		if created, err := EnsureNote(ctx, st, "n"); err != nil || created != want {
			t.Fatalf("call %d: created %v, err %v; want %v", i+1, created, err, want)
		}
	}
}
