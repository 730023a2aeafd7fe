package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
)

// serveHTTPT serves srv over streamable HTTP on an ephemeral loopback port
// until the test ends, and returns the endpoint's URL.
func serveHTTPT(t testing.TB, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, srv, ln)
}

func serveOn(t testing.TB, srv *Server, ln net.Listener) string {
	t.Helper()
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(sctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serving: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + HTTPPath
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// reply is one HTTP exchange as the test sees it.
type reply struct {
	status int
	header http.Header
	body   string
}

// post sends a JSON-RPC body with the headers a streamable HTTP client
// sends, and more.
func post(t *testing.T, url, body string, headers ...string) reply {
	t.Helper()
	return do(t, http.MethodPost, url, body, headers...)
}

func do(t *testing.T, method, url, body string, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// A request without Mcp-Session-Id that is no initialize is a 400, with a
// JSON-RPC error naming the request; an initialize opens a session.
func TestHTTPSessionIDRequired(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	r := post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	var body struct {
		ID    any `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &body); err != nil || r.status != http.StatusBadRequest ||
		body.ID != 7.0 || body.Error.Code != -32600 || !strings.Contains(body.Error.Message, "Mcp-Session-Id") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r := post(t, url, initBody); r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
}

// A foreign Origin is refused with 403; the server's own origin, an allowed
// one and none at all are served.
func TestHTTPOrigin(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{AllowOrigins: []string{"http://localhost:6274"}}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	self := "http://" + strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)
	for _, tc := range []struct {
		origin string
		status int
	}{
		{"http://evil.example.com", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://localhost:6275", http.StatusForbidden},
		{self, http.StatusOK},
		{"http://LOCALHOST:6274", http.StatusOK},
		{"", http.StatusOK},
	} {
		var headers []string
		if tc.origin != "" {
			headers = []string{"Origin", tc.origin}
		}
		if r := post(t, url, initBody, headers...); r.status != tc.status {
			t.Errorf("Origin %q: %d %s; want %d", tc.origin, r.status, r.body, tc.status)
		}
	}
}

// The Host check holds on every address, a wildcard bind included: a name
// that is not loopback, not allowed and not the address the connection came
// to is refused, whatever address that is.
func TestHTTPHost(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{AllowHosts: []string{"notes.example.com"}}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"evil.example.com", http.StatusForbidden},
		{"evil.example.com:80", http.StatusForbidden},
		{"notes.example.com", http.StatusOK},
		{"localhost", http.StatusOK},
		{"[::1]:9", http.StatusOK},
	} {
		if r := post(t, url, initBody, "Host", tc.host); r.status != tc.status {
			t.Errorf("Host %q: %d %s; want %d", tc.host, r.status, r.body, tc.status)
		}
	}

	// A connection that came to a public address of a wildcard listener.
	g, err := newGuard(srv, HTTPOptions{Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	g.h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8765}
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"evil.example.com:8765", http.StatusForbidden},
		{"192.0.2.11:8765", http.StatusForbidden},
		{"192.0.2.10:8765", http.StatusTeapot},
	} {
		req := httptest.NewRequestWithContext(context.WithValue(ctx, http.LocalAddrContextKey, local), http.MethodGet, "http://"+tc.host+HTTPPath, nil)
		req.Header.Set("Authorization", "Bearer t")
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("Host %q on 192.0.2.10: %d; want %d", tc.host, rec.Code, tc.status)
		}
	}
}

// With a token every request must carry it: 401 with WWW-Authenticate
// otherwise.
func TestHTTPToken(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{Token: "s3cret"}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	for _, tc := range []struct {
		auth   string
		status int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer s3cre", http.StatusUnauthorized},
		{"Basic czNjcmV0", http.StatusUnauthorized},
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK},
	} {
		var headers []string
		if tc.auth != "" {
			headers = []string{"Authorization", tc.auth}
		}
		r := post(t, url, initBody, headers...)
		if r.status != tc.status || (r.status == http.StatusUnauthorized && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer")) {
			t.Errorf("Authorization %q: %d %v %s; want %d", tc.auth, r.status, r.header, r.body, tc.status)
		}
	}
}

// wildcardListener is a loopback listener that says it listens on every
// address, as one bound to 0.0.0.0 does.
type wildcardListener struct{ net.Listener }

func (l wildcardListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4zero, Port: l.Listener.Addr().(*net.TCPAddr).Port}
}

// An address beyond loopback is served only with a token.
func TestHTTPBeyondLoopbackNeedsToken(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.ServeListener(ctx, wildcardListener{ln}); !errors.Is(err, ErrNoToken) {
		t.Fatalf("%v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Fatal("the listener refused was left open")
	}
	for _, addr := range []string{"0.0.0.0:80", "[::]:80", "192.0.2.1:80", "example.com:80"} {
		if Loopback(addr) {
			t.Errorf("%s counted as loopback", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:80", "localhost:80", "127.8.9.1:1"} {
		if !Loopback(addr) {
			t.Errorf("%s not counted as loopback", addr)
		}
	}
}

// At most MaxSessions sessions are open at once: an initialize beyond them
// gets 503; a session ended (DELETE) or idle past IdleTimeout frees its slot.
func TestHTTPMaxSessions(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{MaxSessions: 3}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	var ids []string
	for range 3 {
		r := post(t, url, initBody)
		if r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		ids = append(ids, r.header.Get("Mcp-Session-Id"))
	}
	r := post(t, url, initBody)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "3 sessions open, the most this server serves at once") {
		t.Fatalf("a fourth session: %d %s", r.status, r.body)
	}
	if r := do(t, http.MethodDelete, url, "", "Mcp-Session-Id", ids[0]); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	waitForSlot(t, url)
}

// waitForSlot opens sessions until one is admitted, for at most 10 s: the
// slot of an ended session is freed once the server has seen it end.
func waitForSlot(t *testing.T, url string, headers ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := post(t, url, initBody, headers...)
		if r.status == http.StatusOK {
			return
		}
		if r.status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("no slot freed: %d %s", r.status, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A session no request touches for IdleTimeout ends, and frees its slot.
func TestHTTPIdleTimeout(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{MaxSessions: 1, IdleTimeout: 50 * time.Millisecond}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	first := post(t, url, initBody)
	if first.status != http.StatusOK {
		t.Fatalf("%d %s", first.status, first.body)
	}
	waitForSlot(t, url)
	if r := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", first.header.Get("Mcp-Session-Id")); r.status != http.StatusNotFound {
		t.Fatalf("the idle session still answers: %d %s", r.status, r.body)
	}
}

// slowClient opens a connection to url and sends a POST's headers (extra
// header lines included) announcing a body of size bytes, then the body a
// byte at a time, every 20 ms, until the connection fails or the test ends.
// It returns the connection, from which the test reads what the server
// answers.
func slowClient(t *testing.T, url string, size int, extra ...string) net.Conn {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	head := "POST " + HTTPPath + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\n"
	for _, h := range extra {
		head += h + "\r\n"
	}
	head += "Content-Length: " + strconv.Itoa(size) + "\r\n\r\n"
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range size {
			if _, err := c.Write([]byte{' '}); err != nil {
				return
			}
			select {
			case <-tick.C:
			case <-stop:
				return
			}
		}
	}()
	return c
}

// cut reads what the server sends on c until it closes the connection, and
// returns it; the test fails if the server has not closed it within 20 s,
// a bound far above what the server is asked to take.
func cut(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server still holds the connection after 20 s; it sent %q", b)
	}
	return string(b)
}

// A request without the right token is refused from its headers: 401 at
// once, and the connection closed, however slowly its body comes; the body
// is never waited for. (20 such connections trickling a byte a second to a
// token-protected server were all still open after 45 s, none answered.)
func TestHTTPSlowBodyWithoutToken(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{Token: "s3cret", ReadTimeout: time.Hour}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	var conns []net.Conn
	for i := range 20 {
		auth := []string{}
		if i%2 == 1 {
			auth = append(auth, "Authorization: Bearer wrong")
		}
		conns = append(conns, slowClient(t, url, 10_000, auth...))
	}
	for i, c := range conns {
		if got := cut(t, c); !strings.HasPrefix(got, "HTTP/1.1 401 ") {
			t.Errorf("connection %d: %q, want 401", i, got)
		}
	}
}

// A request whose body does not arrive within ReadTimeout is cut: the
// connection is closed, whether it opens a session or calls in one.
func TestHTTPSlowBodyIsCut(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{Token: "s3cret", ReadTimeout: 200 * time.Millisecond}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	r := post(t, url, initBody, "Authorization", "Bearer s3cret")
	if r.status != http.StatusOK {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	auth := "Authorization: Bearer s3cret"
	for name, extra := range map[string][]string{
		"initialize":   {auth},
		"in a session": {auth, "Mcp-Session-Id: " + r.header.Get("Mcp-Session-Id")},
	} {
		t.Run(name, func(t *testing.T) {
			got := cut(t, slowClient(t, url, 10_000, extra...))
			if got != "" && !strings.HasPrefix(got, "HTTP/1.1 4") {
				t.Errorf("the server answered %q", got)
			}
		})
	}
}

// ReadTimeout bounds requests, not the event stream a GET opens: the stream
// stays open past it, and the session answers afterwards.
func TestHTTPEventStreamOutlivesReadTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{ReadTimeout: timeout}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	r := post(t, url, initBody)
	if r.status != http.StatusOK {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	sid := r.header.Get("Mcp-Session-Id")
	if r := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid); r.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		ended <- err
	}()
	time.Sleep(5 * timeout)
	select {
	case err := <-ended:
		t.Fatalf("the event stream ended after the read timeout: %v", err)
	default:
	}
	if r := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", sid); r.status != http.StatusOK {
		t.Fatalf("ping: %d %s", r.status, r.body)
	}
}

// The refusal of a session beyond the last counts in words: "1 session",
// never "1 sessions".
func TestHTTPMaxSessionsOne(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{HTTP: HTTPOptions{MaxSessions: 1}})
	closeOnCleanup(t, srv)
	url := serveHTTPT(t, srv)
	if r := post(t, url, initBody); r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r := post(t, url, initBody); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "Service Unavailable: 1 session open, the most") {
		t.Fatalf("a second session: %d %s", r.status, r.body)
	}
}

// A shutdown closes the connections that have begun no request, which
// http.Server.Shutdown would wait five seconds for, and leaves the others to
// Shutdown: one that has begun a request, and one idle between requests.
func TestShutdownClosesFreshConnections(t *testing.T) {
	var f freshConns
	type pipe struct{ server, client net.Conn }
	open := func() pipe {
		s, c := net.Pipe()
		t.Cleanup(func() { s.Close(); c.Close() })
		return pipe{s, c}
	}
	fresh, active, idle := open(), open(), open()
	for _, p := range []pipe{fresh, active, idle} {
		f.track(p.server, http.StateNew)
	}
	f.track(active.server, http.StateActive)
	f.track(idle.server, http.StateActive)
	f.track(idle.server, http.StateIdle)
	f.closeAll()
	late := open() // accepted before the listener closed, told of after
	f.track(late.server, http.StateNew)
	closed := func(p pipe) bool {
		p.client.SetReadDeadline(time.Now().Add(-time.Second)) // read what is there, wait for nothing
		_, err := p.client.Read(make([]byte, 1))
		return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)
	}
	if !closed(fresh) || !closed(late) {
		t.Error("a connection that began no request is open after the shutdown")
	}
	if closed(active) || closed(idle) {
		t.Error("a connection that began a request was closed")
	}
}

// The options a user sets are checked with errors that name the option,
// for the command to name its flag.
func TestHTTPOptionsCheck(t *testing.T) {
	ok := HTTPOptions{MaxSessions: 1, MaxInflight: 100_000, AllowOrigins: []string{"http://localhost:6274", "https://notes.example.com"}}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		o    HTTPOptions
		want string
	}{
		{HTTPOptions{MaxSessions: 0, MaxInflight: 1}, "max_sessions: must be 1 to 100000"},
		{HTTPOptions{MaxSessions: 1, MaxInflight: 100_001}, "max_inflight: must be 1 to 100000"},
		{HTTPOptions{MaxSessions: 1, MaxInflight: 1, AllowOrigins: []string{"localhost:6274"}}, `allow_origin: "localhost:6274" is not an origin (want http://HOST[:PORT] or https://HOST[:PORT])`},
	} {
		var fe *field.Error
		if err := tc.o.Check(); err == nil || err.Error() != tc.want || !errors.As(err, &fe) {
			t.Errorf("%+v: %v; want the field error %q", tc.o, err, tc.want)
		}
	}
}

// Each word of ExtensionSettings names the Extensions of its place.
func TestParseExtensions(t *testing.T) {
	for word, want := range map[string]Extensions{"on-request": ExtensionsOnRequest, "all": ExtensionsAll, "none": ExtensionsNone} {
		if got, err := ParseExtensions(word); err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", word, got, err, want)
		}
	}
	if _, err := ParseExtensions("yes"); err == nil || err.Error() != `unknown extensions setting "yes" (want on-request, all or none)` {
		t.Errorf("yes: %v", err)
	}
}
