package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// rawConn is a client's end of a server served over a StdioTransport on
// pipes: lines are sent and read as they are, with no client library between.
type rawConn struct {
	t      testing.TB
	in     *io.PipeWriter
	lines  chan string
	served chan error
}

// rawStdio serves srv over a StdioTransport with the given line limit (0: the
// default) until the test ends or the input is closed.
func rawStdio(t testing.TB, srv *Server, maxLine int) *rawConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawConn{t: t, in: inW, lines: make(chan string, 64), served: make(chan error, 1)}
	go func() {
		c.served <- srv.Serve(ctx, &StdioTransport{Reader: inR, Writer: outW, MaxLine: maxLine})
		outW.Close()
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		io.Copy(io.Discard, outR)
	}()
	t.Cleanup(func() {
		inW.Close()
		c.wait()
		for range c.lines {
		}
	})
	return c
}

// send writes one line, the newline added.
func (c *rawConn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("sending %.80s: %v", line, err)
	}
}

// recv reads the next line the server wrote, as a JSON object.
func (c *rawConn) recv() map[string]any {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server's output ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			c.t.Fatalf("the server wrote %q: %v", line, err)
		}
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatal("no answer within 30s")
	}
	return nil
}

// wait waits for Serve to return and returns its error.
func (c *rawConn) wait() error {
	select {
	case err := <-c.served:
		c.served <- err
		return err
	case <-time.After(30 * time.Second):
		c.t.Fatal("Serve did not return within 30s of the end of its input")
	}
	return nil
}

// initialize opens the MCP session, with the capabilities given (a JSON
// object).
func (c *rawConn) initialize(capabilities string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` +
		capabilities + `,"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := c.recv(); r["id"] != "init" || r["result"] == nil {
		c.t.Fatalf("initialize: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ping sends a ping and checks its answer.
func (c *rawConn) ping(id string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`, id))
	if r := c.recv(); r["id"] != id || r["error"] != nil {
		c.t.Fatalf("ping %s: %v", id, r)
	}
}

// Every line that is no message gets a JSON-RPC error, with the request's id
// when it has a usable one, and the server goes on serving.
func TestStdioSurvivesBadLines(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	c := rawStdio(t, srv, 4096)
	c.initialize(`{}`)
	for i, tc := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not JSON", "not json", -32700, nil},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, 1.0},
		{"no version", `{"id":"v","method":"ping"}`, -32600, "v"},
		{"a batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, nil},
		{"an empty batch", `[]`, -32600, nil},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"NaN", `{"jsonrpc":"2.0","id":3,"method":"ping","params":NaN}`, -32700, nil},
		{"a line cut off", `{"jsonrpc":"2.0","id":5,"method":"pi`, -32700, nil},
		{"a number", `42`, -32600, nil},
		{"neither method nor id", `{"jsonrpc":"2.0"}`, -32600, nil},
		{"deep nesting", `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":` + strings.Repeat("[", 1500) + strings.Repeat("]", 1500) + `}}`, -32600, 6.0},
		{"a line over the limit", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"` + strings.Repeat("x", 5000) + `"}}`, -32600, nil},
	} {
		c.send(tc.line)
		r := c.recv()
		e, _ := r["error"].(map[string]any)
		id, hasID := r["id"]
		if r["jsonrpc"] != "2.0" || e == nil || e["code"] != tc.code || !hasID || id != tc.id {
			t.Errorf("%s: %v; want error %v with id %v", tc.name, r, tc.code, tc.id)
		}
		c.ping(fmt.Sprint("after-", i))
	}
}

// A line longer than the default limit, MaxMessageBytes, is refused as it is
// read; the next line is served.
func TestStdioDefaultLineLimit(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	c := rawStdio(t, srv, 0)
	c.initialize(`{}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", MaxMessageBytes) + `"}}`)
	if r := c.recv(); r["id"] != nil || r["error"].(map[string]any)["code"] != -32600.0 {
		t.Fatalf("%v", r)
	}
	c.ping("after")
}

// At the end of the input the calls already read are answered and applied,
// then Serve returns nil.
func TestStdioEOFFinishesCalls(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	c := rawStdio(t, srv, 0)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"edit_note_tab","arguments":{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"written"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_note_tabs","arguments":{"note_id":"note-1"}}}`,
	} {
		c.send(line)
	}
	c.in.Close()
	got := map[float64]map[string]any{}
	for line := range c.lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got[m["id"].(float64)] = m
	}
	if err := c.wait(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for _, id := range []float64{1, 2, 3, 4} {
		if got[id] == nil || got[id]["error"] != nil {
			t.Errorf("call %v: %v", id, got[id])
		}
	}
	cs, err := srv.b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if r, err := cs.ReadNoteTab(ctx, "note-1", "markdown"); err != nil || r.Text != "written" {
		t.Fatalf("the write read before the end of the input: %+v %v", r, err)
	}
}

// The errors of the session's start carry the JSON-RPC code of what they
// are, never 0 (a code JSON-RPC does not define, which the SDK sends for
// these): a call before initialize is an invalid request, initialize params
// that cannot be decoded invalid params; once initialized, the session
// answers as before.
func TestStdioInitializationErrorCodes(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	c := rawStdio(t, srv, 0)
	for _, tc := range []struct {
		line string
		code float64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, -32600},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_note_tab"}}`, -32600},
		{`{"jsonrpc":"2.0","id":3,"method":"bogus"}`, -32600},
		{`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":5}}`, -32602},
		{`{"jsonrpc":"2.0","id":5,"method":"initialize","params":"x"}`, -32602},
	} {
		c.send(tc.line)
		r := c.recv()
		e, _ := r["error"].(map[string]any)
		if e == nil || e["code"] != tc.code || e["message"] == "" {
			t.Errorf("%s: %v, want an error of code %v", tc.line, r, tc.code)
		}
	}
	c.initialize(`{}`)
	c.ping("after")
	c.send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
	if r := c.recv(); r["result"] == nil {
		t.Fatalf("tools/list once initialized: %v", r)
	}
}
