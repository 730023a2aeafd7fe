package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// listed sends tools/list over c and returns the tools as the wire carries
// them.
func listed(t *testing.T, c *rawConn) []map[string]any {
	t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	r := c.recv()
	res, ok := r["result"].(map[string]any)
	if !ok {
		t.Fatalf("tools/list: %v", r)
	}
	var tools []map[string]any
	for _, x := range res["tools"].([]any) {
		tools = append(tools, x.(map[string]any))
	}
	return tools
}

// A plain client is shown the published tools/list exactly as published:
// the same objects, nothing added (no idempotentHint), nothing moved
// (securitySchemes where the published list has them).
func TestToolsListIsThePublishedOne(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	c := rawStdio(t, srv, 0)
	c.initialize(`{}`)
	published, err := os.ReadFile("../contract/tools_list.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(published, &want); err != nil {
		t.Fatal(err)
	}
	got := listed(t, c)
	if !reflect.DeepEqual(got, want.Tools) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want.Tools, "", " ")
		t.Fatalf("served tools/list:\n%s\nwant contract/tools_list.json:\n%s", g, w)
	}
}

// The extension tools are listed, and answered, only to a session that asks
// for them in its initialize, or to every session with ExtensionsAll; with
// ExtensionsNone to none.
func TestExtensionsOnlyToClientsThatAsk(t *testing.T) {
	asks := `{"experimental":{"` + ext.Capability + `":{}}}`
	for _, tc := range []struct {
		mode               Extensions
		capabilities       string
		listed, describeOK bool
	}{
		{ExtensionsOnRequest, `{}`, false, false},
		{ExtensionsOnRequest, `{"experimental":{"other/thing":{}}}`, false, false},
		{ExtensionsOnRequest, asks, true, true},
		{ExtensionsAll, `{}`, true, true},
		{ExtensionsNone, asks, false, false},
	} {
		t.Run(fmt.Sprintf("%d %s", tc.mode, tc.capabilities), func(t *testing.T) {
			srv := newServer(t, contract.Variant{}, Options{Extensions: tc.mode})
			closeOnCleanup(t, srv)
			c := rawStdio(t, srv, 0)
			c.initialize(tc.capabilities)
			var names []string
			for _, tool := range listed(t, c) {
				names = append(names, tool["name"].(string))
			}
			if n := len(contract.Tools()) + len(ext.Tools()); (len(names) == n) != tc.listed || (len(names) != 7 && !tc.listed) {
				t.Fatalf("listed %v", names)
			}
			c.send(`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"notesbench_describe","arguments":{}}}`)
			r := c.recv()
			e, _ := r["error"].(map[string]any)
			if tc.describeOK != (e == nil) || (e != nil && (e["code"] != -32602.0 || !strings.Contains(e["message"].(string), "unknown tool"))) {
				t.Fatalf("notesbench_describe: %v", r)
			}
		})
	}
}

// countingBackend counts the contract sessions opened on it.
type countingBackend struct {
	contract.Backend
	opened atomic.Int64
}

func (b *countingBackend) Session(ctx context.Context) (contract.Session, error) {
	b.opened.Add(1)
	return b.Backend.Session(ctx)
}

// MCP sessions share the server's contract sessions: 40 clients that each
// make a call and go away without ending their session hold no database
// connection, and the calls of all of them ran on at most MaxConns.
func TestSessionsShareConnections(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{MaxConns: 2})
	closeOnCleanup(t, srv)
	counted := &countingBackend{Backend: srv.b}
	srv.pool = newPool(counted, 2)
	var wg sync.WaitGroup
	for i := range 40 {
		cs := connect(t, srv)
		call(t, cs, "list_note_tabs", `{"note_id":"note-1"}`)
		if i%2 == 0 { // half of them in parallel with the next
			wg.Go(func() {
				cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_note_tabs", Arguments: map[string]any{"note_id": "note-1"}})
			})
		}
	}
	wg.Wait()
	if n := counted.opened.Load(); n > 2 {
		t.Fatalf("40 sessions opened %d contract sessions, more than MaxConns 2", n)
	}
}

// A call that finds every contract session busy waits for one, and gives up
// when its client does.
func TestPoolWaitsForAFreeSession(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	p := newPool(srv.b, 1)
	defer p.close()
	inside := make(chan struct{})
	leave := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := p.call(ctx, false, func(contract.Session) (json.RawMessage, error) {
			close(inside)
			<-leave
			return nil, nil
		})
		done <- err
	}()
	<-inside
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.call(cctx, false, func(contract.Session) (json.RawMessage, error) { return nil, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call while the one session is busy, cancelled: %v", err)
	}
	close(leave)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := p.call(ctx, false, func(contract.Session) (json.RawMessage, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
}

// A failure's message names no absolute path: what Options.Redact lists is
// cut from it, and from what notesbench_describe says.
func TestRepliesNameNoPath(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{Extensions: ExtensionsAll,
		Describe: "SQLite, file /home/someone/notes/notesbench.db", Redact: []string{"/home/someone/notes/"}})
	closeOnCleanup(t, srv)
	_, out := call(t, cs, ext.ToolDescribe, `{}`)
	if out["backend"] != "SQLite, file notesbench.db" {
		t.Fatalf("describe: %v", out)
	}
	srv.pool = newPool(failingWith{srv.b, "unable to open /home/someone/notes/notesbench.db-wal"}, 1)
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_note_tabs", Arguments: map[string]any{"note_id": "note-1"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != "list_note_tabs: unable to open notesbench.db-wal" {
		t.Fatalf("%v", err)
	}
}

type failingWith struct {
	contract.Backend
	msg string
}

func (f failingWith) Session(context.Context) (contract.Session, error) {
	return nil, errors.New(f.msg)
}

// breakable is a Backend whose sessions opened so far can be broken at once,
// as a database server that ends its connections breaks them.
type breakable struct {
	contract.Backend
	mu     sync.Mutex
	broken []*atomic.Bool
}

func (b *breakable) Session(ctx context.Context) (contract.Session, error) {
	s, err := b.Backend.Session(ctx)
	if err != nil {
		return nil, err
	}
	dead := &atomic.Bool{}
	b.mu.Lock()
	b.broken = append(b.broken, dead)
	b.mu.Unlock()
	return brokenSession{s, dead}, nil
}

func (b *breakable) breakAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range b.broken {
		d.Store(true)
	}
}

type brokenSession struct {
	contract.Session
	dead *atomic.Bool
}

func (s brokenSession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	if s.dead.Load() {
		return contract.TabList{}, errors.New("terminating connection due to administrator command")
	}
	return s.Session.ListNoteTabs(ctx, noteID)
}

func (s brokenSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if s.dead.Load() {
		return contract.EditResult{}, errors.New("terminating connection due to administrator command")
	}
	return s.Session.EditNoteTab(ctx, req)
}

// When the database ends the connections the pool keeps idle, a read is made
// again until it reaches a fresh one, and succeeds; a write is not made again
// (its outcome is unknown: the client resends it with its key), but the
// session it failed on is gone, and the resend succeeds.
func TestPoolReconnectsAfterTheDatabaseEndedItsConnections(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	b := &breakable{Backend: srv.b}
	srv.pool = newPool(b, 4)
	var wg sync.WaitGroup
	for range 4 { // four sessions in the pool
		wg.Go(func() {
			cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_note_tabs", Arguments: map[string]any{"note_id": "note-1"}})
		})
	}
	wg.Wait()
	b.breakAll()
	if res, out := call(t, cs, "list_note_tabs", `{"note_id":"note-1"}`); res.IsError || out["note_id"] != "note-1" {
		t.Fatalf("a read after the connections ended: %v", out)
	}
	b.breakAll()
	write := `{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"w","operation":"replace_text","text":"x"}`
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_note_tab", Arguments: json.RawMessage(write)})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a write on a connection that ended: %v", err)
	}
	for range 4 { // the resend, until it meets a fresh session
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_note_tab", Arguments: json.RawMessage(write)})
		if err == nil {
			if out, _ := resultObject(res); res.IsError || out["version"] != 2.0 {
				t.Fatalf("the resend: %v", out)
			}
			return
		}
	}
	t.Fatal("the write never reached a fresh session")
}
