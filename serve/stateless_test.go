package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// statelessMeta is the _meta every 2026-07-28 request carries.
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

// statelessList is a raw stateless tools/list: no handshake before it.
const statelessList = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMeta + `}}`

// statelessHeaders are the headers of a 2026-07-28 tools/list.
var statelessHeaders = []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"}

// resultOf decodes the result of a JSON-RPC response.
func resultOf(t *testing.T, r reply, v any) {
	t.Helper()
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  any             `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &msg); err != nil || r.status != http.StatusOK || msg.Error != nil {
		t.Fatalf("%d %v %s", r.status, err, r.body)
	}
	if err := json.Unmarshal(msg.Result, v); err != nil {
		t.Fatal(err)
	}
}

// A raw stateless tools/list, with the 2026-07-28 _meta and headers and no
// handshake, is answered with the published tools, and sets no session; a
// server/discover names both protocols; the 2025-11-25 handshake still opens
// a session beside it.
func TestStatelessToolsList(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	r := post(t, url, statelessList, statelessHeaders...)
	var got struct {
		Tools []map[string]any `json:"tools"`
	}
	resultOf(t, r, &got)
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
	if len(got.Tools) != 7 || !reflect.DeepEqual(got.Tools, want.Tools) {
		t.Fatalf("stateless tools/list: %s", r.body)
	}
	if sid := r.header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("a stateless request got a session: %s", sid)
	}

	r = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+statelessMeta+`}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover")
	var disc struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	resultOf(t, r, &disc)
	if !contains(disc.SupportedVersions, "2026-07-28") || !contains(disc.SupportedVersions, "2025-11-25") {
		t.Errorf("server/discover: %s", r.body)
	}

	if r := post(t, url, initBody); r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("the 2025-11-25 initialize: %d %s", r.status, r.body)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The SDK's client negotiates 2026-07-28 with serve over HTTP, without a
// session, and a call and a conflict go as on a session; a client that asks
// for 2025-11-25 gets a session of that version. The extension tools are
// listed to a stateless client that declares the capability in its _meta.
func TestStatelessClient(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	for _, version := range []string{"", "2025-11-25"} {
		caps := &mcp.ClientCapabilities{Experimental: map[string]any{ext.Capability: map[string]any{}}}
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		want, session := "2026-07-28", false
		if version != "" {
			want, session = version, true
		}
		if got := cs.InitializeResult().ProtocolVersion; got != want || (cs.ID() != "") != session {
			t.Errorf("asked %q: negotiated %s, session %q", version, got, cs.ID())
		}
		n := 0
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tool.Name, ext.Prefix) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no extension tools listed to a client that asks", want)
		}
		_, out := call(t, cs, contract.ToolEditNoteTab, `{"note_id":"note-1","tab_id":"markdown","expected_version":99,"idempotency_key":"k-`+want+`","operation":"replace_text","text":"x"}`)
		if out["error"] != contract.ErrVersionConflict {
			t.Errorf("%s: a stale write: %v", want, out)
		}
		cs.Close()
	}
}

// The guard holds for stateless requests as for sessions: the Host, the
// Origin, the token and the body limit, each refused before the SDK sees the
// request.
func TestStatelessGuarded(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{Token: "s3cret"}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	auth := []string{"Authorization", "Bearer s3cret"}
	with := func(extra ...string) []string {
		return append(append(append([]string{}, statelessHeaders...), auth...), extra...)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + statelessMeta + `,"name":"read_note_tab","arguments":{"note_id":"` +
		strings.Repeat("x", MaxMessageBytes) + `"}}}`
	for _, tc := range []struct {
		name    string
		body    string
		headers []string
		status  int
	}{
		{"served", statelessList, with(), http.StatusOK},
		{"no token", statelessList, statelessHeaders, http.StatusUnauthorized},
		{"a foreign Origin", statelessList, with("Origin", "http://evil.example.com"), http.StatusForbidden},
		{"a foreign Host", statelessList, with("Host", "evil.example.com"), http.StatusForbidden},
		{"a body over the limit", big, with(), http.StatusRequestEntityTooLarge},
	} {
		if r := post(t, url, tc.body, tc.headers...); r.status != tc.status {
			t.Errorf("%s: %d %s; want %d", tc.name, r.status, cut200(r.body), tc.status)
		}
	}
}

func cut200(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// At most MaxInflight stateless requests are served at once: one beyond
// them gets 503 with Retry-After, and once one ends the next is served. A
// session's requests are not counted against it.
func TestStatelessMaxInflight(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	g, err := newGuard(srv, HTTPOptions{MaxInflight: 2})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(body string, headers ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1"+HTTPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		return rec
	}
	// Two requests in flight, held by the test.
	g.inflight <- struct{}{}
	g.inflight <- struct{}{}
	rec := serve(statelessList, statelessHeaders...)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), "2 stateless requests in flight, the most this server serves at once") {
		t.Fatalf("a third request: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	if rec := serve(initBody); rec.Code != http.StatusOK {
		t.Fatalf("an initialize while the stateless requests are all in flight: %d %s", rec.Code, rec.Body)
	}
	<-g.inflight
	if rec := serve(statelessList, statelessHeaders...); rec.Code != http.StatusOK {
		t.Fatalf("once one ended: %d %s", rec.Code, rec.Body)
	}
	if len(g.inflight) != 1 {
		t.Errorf("%d slots held after the request", len(g.inflight))
	}
}

// A stateless tools/list carries what 2026-07-28 requires of a list result
// (resultType "complete", ttlMs, cacheScope) and the server's identity in
// _meta; the list of
// a session, sent after many stateless ones at once, carries neither: each
// stateless result is a copy of its own, the published list is never
// written to.
func TestStatelessListResult(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	type result struct {
		ResultType string         `json:"resultType"`
		TTLMs      *int           `json:"ttlMs"`
		CacheScope string         `json:"cacheScope"`
		Meta       map[string]any `json:"_meta"`
		Tools      []any          `json:"tools"`
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var got result
			resultOf(t, post(t, url, statelessList, statelessHeaders...), &got)
			if got.ResultType != "complete" || got.TTLMs == nil || got.CacheScope != "public" || got.Meta["io.modelcontextprotocol/serverInfo"] == nil || len(got.Tools) != 7 {
				t.Errorf("stateless tools/list: resultType %q, _meta %v, %d tools", got.ResultType, got.Meta, len(got.Tools))
			}
		})
	}
	wg.Wait()
	init := post(t, url, initBody)
	sid := init.header.Get("Mcp-Session-Id")
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid)
	var got result
	resultOf(t, post(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"), &got)
	if got.ResultType != "" || got.TTLMs != nil || got.CacheScope != "" || got.Meta != nil || len(got.Tools) != 7 {
		t.Errorf("a session's tools/list after stateless ones: resultType %q, _meta %v, %d tools", got.ResultType, got.Meta, len(got.Tools))
	}
}

// An initialize that speaks 2026-07-28 is a method that version does not
// have: 404 with method not found, and no session opened.
func TestStatelessInitializeNotFound(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{MaxSessions: 1}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"raw","version":"1"},` + statelessMeta + `}}`
	r := post(t, url, body, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "initialize")
	if r.status != http.StatusNotFound || !strings.Contains(r.body, `"code":-32601`) || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("%d %v %s", r.status, r.header, r.body)
	}
	if r := post(t, url, initBody); r.status != http.StatusOK {
		t.Fatalf("the one session slot was taken: %d %s", r.status, r.body)
	}
}

// What serve declares is what it answers, on both protocols: server/discover
// (2026-07-28) and initialize (2025-11-25, over HTTP and over stdio) declare
// the same capabilities: tools without listChanged, as the list never
// changes and no list_changed is ever sent; prompts and resources, which
// prompts/list and resources/list answer, each with an empty list; logging,
// which logging/setLevel answers; and no completions, which
// completion/complete refuses as a method it does not have.
func TestCapabilitiesAsAnswered(t *testing.T) {
	const want = `{"logging":{},"prompts":{},"resources":{},"tools":{}}`
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	stateless := func(id int, method, params string) reply {
		if params != "" {
			params = "," + params
		}
		return post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, statelessMeta, params),
			"Mcp-Protocol-Version", StatelessVersion, "Mcp-Method", method)
	}
	var disc struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	resultOf(t, stateless(1, "server/discover", ""), &disc)
	if !jsonEqual(string(disc.Capabilities), want) {
		t.Errorf("server/discover declares %s; want %s", disc.Capabilities, want)
	}
	var lists struct {
		Prompts   []any `json:"prompts"`
		Resources []any `json:"resources"`
	}
	resultOf(t, stateless(2, "prompts/list", ""), &lists)
	resultOf(t, stateless(3, "resources/list", ""), &lists)
	if lists.Prompts == nil || len(lists.Prompts) != 0 || lists.Resources == nil || len(lists.Resources) != 0 {
		t.Errorf("prompts/list and resources/list: %+v", lists)
	}
	r := stateless(4, "completion/complete", `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"b"}`)
	if !strings.Contains(r.body, `"code":-32601`) {
		t.Errorf("completion/complete, not declared: %d %s", r.status, r.body)
	}

	var init struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	resultOf(t, post(t, url, initBody), &init)
	if !jsonEqual(string(init.Capabilities), want) {
		t.Errorf("initialize over HTTP declares %s; want %s", init.Capabilities, want)
	}
	c := rawStdio(t, srv, 0)
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	res, _ := c.recv()["result"].(map[string]any)
	caps, _ := json.Marshal(res["capabilities"])
	if !jsonEqual(string(caps), want) {
		t.Errorf("initialize over stdio declares %s; want %s", caps, want)
	}
}
