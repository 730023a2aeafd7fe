package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// recorder is an HTTP server of an MCP server in this process that records
// the JSON-RPC method of every request it gets.
type recorder struct {
	URL     string
	mu      sync.Mutex
	methods []string
}

// record serves srv over streamable HTTP, stateless or with sessions only
// (the SDK's handler, as a server of 2025-11-25 serves), recording each
// request's method; it stops when the test ends.
func record(t testing.TB, srv *mcp.Server, stateless bool) *recorder {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: true})
	r := &recorder{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
			r.mu.Lock()
			r.methods = append(r.methods, msg.Method)
			r.mu.Unlock()
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(hs.Close)
	r.URL = hs.URL + "/mcp"
	return r
}

// calls returns the methods recorded so far, and forgets them.
func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.methods
	r.methods = nil
	return out
}

// specT parses a target.
func specT(t testing.TB, raw string) TargetSpec {
	t.Helper()
	spec, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// writeAndConflict writes on note-1 of a fresh run of tg from one session
// and refuses a stale write from another.
func writeAndConflict(t *testing.T, tg *Target) {
	t.Helper()
	b := openNote(t, tg, "protocol")
	a, c := sessionT(t, b), sessionT(t, b)
	w, err := a.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "a",
		Operation: contract.OpReplaceText, Text: "from a"})
	if err != nil || w.Version != "2" {
		t.Fatalf("write: %+v %v", w, err)
	}
	_, err = c.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "c",
		Operation: contract.OpReplaceText, Text: "from c"})
	var ce *contract.ConflictError
	if !errors.As(err, &ce) || ce.Current != "2" {
		t.Fatalf("a stale write: %v", err)
	}
}

// A target negotiates the newest protocol the server speaks: 2026-07-28 with
// a stateless server, serve --http's and over stdio too, and 2025-11-25 with
// a server of sessions only; pinned, it speaks the version asked for. The version is in
// Wire and in Describe, and the transport's floor is the cheapest round trip
// of the version: server/discover, which 2026-07-28 has in place of ping.
func TestProtocolNegotiated(t *testing.T) {
	srv := newServer(t, contract.Variant{})
	stateless, sessions := record(t, srv.MCP(), true), record(t, srv.MCP(), false)
	stdio := helperTarget(t, filepath.Join(t.TempDir(), "notes.db"))
	served := serveHTTP(t, contract.Variant{})
	for _, tc := range []struct {
		name  string
		spec  TargetSpec
		pin   string
		want  string
		floor string
		rec   *recorder
	}{
		{"stateless", specT(t, stateless.URL), "", "2026-07-28", "server/discover", stateless},
		{"sessions only", specT(t, sessions.URL), "", "2025-11-25", "ping", sessions},
		{"serve --http", served, "", "2026-07-28", "", nil},
		{"serve --http, pinned to 2025-11-25", served, "2025-11-25", "2025-11-25", "", nil},
		{"stdio", stdio, "", "2026-07-28", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := dialT(t, tc.spec, Options{Protocol: tc.pin})
			if got := tg.Protocol(); got != tc.want || tg.Wire().Protocol != tc.want || tg.Wire().Sessions != contract.SessionsPerEditor {
				t.Errorf("negotiated %s (%+v); want %s", got, tg.Wire(), tc.want)
			}
			if d := tg.Describe(); !strings.Contains(d, "; MCP "+tc.want) || !strings.HasSuffix(d, ", one MCP session per editor") {
				t.Errorf("Describe: %s", d)
			}
			writeAndConflict(t, tg)
			if tc.rec == nil {
				return
			}
			s := sessionT(t, openNote(t, tg, "ping"))
			tc.rec.calls()
			if err := s.(Pinger).Ping(ctx); err != nil {
				t.Fatal(err)
			}
			if got := tc.rec.calls(); !slices.Equal(got, []string{tc.floor}) {
				t.Errorf("the floor's round trip: %q; want %s", got, tc.floor)
			}
		})
	}
}

// A target pinned to a version the server does not speak is one error
// naming both; a version notesbench does not know is refused before any
// connection.
func TestProtocolPinned(t *testing.T) {
	srv := newServer(t, contract.Variant{})
	sessions := record(t, srv.MCP(), false)
	_, err := Dial(ctx, specT(t, sessions.URL), Options{Protocol: "2026-07-28"})
	var ue *UnspokenError
	if !errors.As(err, &ue) || err.Error() != "target "+sessions.URL+" does not speak MCP protocol 2026-07-28: it negotiated 2025-11-25" {
		t.Errorf("%v", err)
	}
	_, err = Dial(ctx, specT(t, sessions.URL), Options{Protocol: "2024-01-01"})
	if err == nil || err.Error() != "target "+sessions.URL+`: "2024-01-01" is not an MCP protocol version notesbench speaks (want 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05)` {
		t.Errorf("%v", err)
	}
}

// A target of several URLs sends each call to one replica: round-robin
// alternates, random follows its seed (two targets of one seed choose
// alike), a session of 2025-11-25 stays on the replica that opened it, and
// a session asked of one replica sends it everything.
func TestReplicasBalance(t *testing.T) {
	srv := newServer(t, contract.Variant{})
	r1, r2 := record(t, srv.MCP(), true), record(t, srv.MCP(), true)
	both := specT(t, r1.URL+","+r2.URL)
	if len(both.URLs) != 2 || both.URL != r1.URL {
		t.Fatalf("parsed %+v", both)
	}
	reads := func(s contract.Session, n int) {
		for range n {
			if _, err := s.ReadNoteTab(ctx, "note-1", "markdown"); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := func() (int, int) { return len(r1.calls()), len(r2.calls()) }

	rr := dialT(t, both, Options{Balance: contract.BalanceRoundRobin})
	if w := rr.Wire(); w.Replicas != 2 || w.Balance != contract.BalanceRoundRobin || !strings.HasSuffix(rr.Describe(), ", 2 replicas, round-robin") {
		t.Errorf("wire %+v; %s", w, rr.Describe())
	}
	s := sessionT(t, openNote(t, rr, "rr"))
	count()
	reads(s, 10)
	if a, b := count(); a != 5 || b != 5 {
		t.Errorf("round-robin: %d and %d of 10 reads", a, b)
	}

	choices := func(seed uint64) []int {
		tg := dialT(t, both, Options{BalanceSeed: seed})
		s := sessionT(t, openNote(t, tg, "random"))
		count()
		var out []int
		for range 16 {
			reads(s, 1)
			a, _ := count()
			out = append(out, a)
		}
		return out
	}
	first, again := choices(7), choices(7)
	if !slices.Equal(first, again) || !slices.Contains(first, 0) || !slices.Contains(first, 1) {
		t.Errorf("random, seed 7: %v, then %v", first, again)
	}

	rb := openNote(t, rr, "pinned").(contract.Replicated)
	one, err := rb.ReplicaSession(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	count()
	reads(one, 4)
	if a, b := count(); a != 0 || b != 4 {
		t.Errorf("a session on replica 2: %d and %d of 4 reads", a, b)
	}
	if _, err := rb.ReplicaSession(ctx, 2); err == nil || err.Error() != "target "+both.Raw+": replica 3 of 2" {
		t.Errorf("replica 3: %v", err)
	}

	s1, s2 := record(t, srv.MCP(), false), record(t, srv.MCP(), false)
	sticky := dialT(t, specT(t, s1.URL+","+s2.URL), Options{Balance: contract.BalanceRoundRobin})
	if sticky.Protocol() != "2025-11-25" {
		t.Fatalf("negotiated %s", sticky.Protocol())
	}
	b := openNote(t, sticky, "sticky")
	for range 2 {
		s := sessionT(t, b)
		s1.calls()
		s2.calls()
		reads(s, 6)
		if a, b := len(s1.calls()), len(s2.calls()); a*b != 0 || a+b != 6 {
			t.Errorf("a session's 6 reads went %d and %d", a, b)
		}
	}
}

// Parse reads several HTTP URLs, comma-separated, as replicas; a list with
// an empty item, a URL twice or another kind of target is refused.
func TestParseReplicas(t *testing.T) {
	spec, err := Parse("http://127.0.0.1:8001/mcp, http://127.0.0.1:8002/mcp")
	if err != nil || !slices.Equal(spec.URLs, []string{"http://127.0.0.1:8001/mcp", "http://127.0.0.1:8002/mcp"}) {
		t.Fatalf("%+v %v", spec, err)
	}
	for raw, want := range map[string]string{
		"http://a:1/mcp,":               `malformed target "http://a:1/mcp,": an empty URL in the list of replicas (want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH)`,
		"http://a:1/mcp,http://a:1/mcp": `malformed target "http://a:1/mcp,http://a:1/mcp": replica http://a:1/mcp is listed twice (want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH)`,
		"http://a:1/mcp,stdio:x":        `malformed target "http://a:1/mcp,stdio:x": replica "stdio:x" is not an http:// or https:// URL (want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH)`,
		"http://a:1/mcp,http://b:0/mcp": `malformed target "http://a:1/mcp,http://b:0/mcp": port "0" is not 1 to 65535 (want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH)`,
	} {
		if _, err := Parse(raw); err == nil || err.Error() != want {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// In the shared session mode every editor's calls go over the Target's one
// session, concurrently: over stdio one server process serves them all.
func TestSessionsShared(t *testing.T) {
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")), Options{Sessions: contract.SessionsShared})
	if w := tg.Wire(); w.Sessions != contract.SessionsShared || !strings.HasSuffix(tg.Describe(), ", one MCP session shared by every editor") {
		t.Errorf("wire %+v: %s", w, tg.Describe())
	}
	b := openNote(t, tg, "shared")
	a, c := sessionT(t, b), sessionT(t, b)
	if a.(*personSession).c != tg.control || c.(*personSession).c != tg.control {
		t.Fatal("the sessions have connections of their own")
	}
	var wg sync.WaitGroup
	for _, s := range []contract.Session{a, c} {
		wg.Go(func() {
			for range 20 {
				if _, err := s.ReadNoteTab(ctx, "note-1", "markdown"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	a.Close()
	if _, err := c.ReadNoteTab(ctx, "note-1", "markdown"); err != nil {
		t.Fatalf("after another editor's session closed: %v", err)
	}
	tg.mu.Lock()
	n := len(tg.conns)
	tg.mu.Unlock()
	if n != 1 {
		t.Errorf("%d connections open; want the one shared", n)
	}
}

// race with note/reapply loses nothing across two serve processes of one
// SQLite file in WAL mode, reached as replicas: every call to either, the
// writes of both committed through SQLite's lock, the keys in the file.
func TestRaceAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("races two editors across two server processes")
	}
	db := filepath.Join(t.TempDir(), "shared.db")
	urls := []string{startHTTPHelper(t, db), startHTTPHelper(t, db)}
	tg := dialT(t, specT(t, strings.Join(urls, ",")), Options{Balance: contract.BalanceRoundRobin})
	cfg := race.Default()
	cfg.Seeds, cfg.Modes, cfg.Edits = []uint64{1, 2}, []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}, 30
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 5 * time.Millisecond}, sim.Dist{Max: 5 * time.Millisecond}, "0"
	res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Lost() != 0 || r.Claude.Edits != 30 || r.Human.Edits != 30 {
			t.Errorf("seed %d: %+v", r.Seed, r)
		}
	}
}

// A server that needs a bearer token refuses a target without it, and
// serves one that sends it on every request (Options.Token).
func TestBearerToken(t *testing.T) {
	st, err := store.Open(store.InMemory, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(ctx, st, serve.Options{HTTP: serve.HTTPOptions{Token: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, "server", srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(sctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-done
	})
	spec := specT(t, "http://"+ln.Addr().String()+serve.HTTPPath)
	if _, err := Dial(ctx, spec, Options{ConnectTimeout: 5 * time.Second}); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("without the token: %v", err)
	}
	tg := dialT(t, spec, Options{Token: "s3cret"})
	if tg.Protocol() != StatelessVersion || len(tg.Wire().Balance) != 0 {
		t.Errorf("with the token: %+v", tg.Wire())
	}
	writeAndConflict(t, tg)
}
