package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
)

// HTTPPath is the path of the MCP endpoint under streamable HTTP.
const HTTPPath = "/mcp"

// HTTPOptions configure how a Server serves streamable HTTP (ServeListener).
// The zero value serves loopback only, with the defaults below.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN), compared in constant time; a request
	// without it gets 401 with WWW-Authenticate. ServeListener refuses to
	// serve an address beyond loopback without one.
	Token string
	// AllowOrigins lists the browser origins (scheme://host[:port]) served
	// beside same-origin requests; a request with any other Origin gets 403.
	// A request without Origin (not from a browser) is served.
	AllowOrigins []string
	// AllowHosts lists the Host header values (a name, or name:port) served
	// beside loopback names and the IP address the connection came to; a
	// request with any other Host gets 403, so that a DNS name rebound to
	// this server reaches nothing.
	AllowHosts []string
	// MaxSessions bounds the MCP sessions open at once; 0 means
	// DefaultMaxSessions. An initialize beyond it gets 503.
	MaxSessions int
	// MaxInflight bounds the stateless (2026-07-28) requests served at
	// once, which hold no session; 0 means DefaultMaxInflight. A request
	// beyond it gets 503 with Retry-After.
	MaxInflight int
	// IdleTimeout ends a session no request has touched for this long; 0
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// ReadTimeout bounds how long a request may take to arrive, its headers
	// and its body; a connection slower than that is closed. 0 means
	// DefaultReadTimeout. It bounds the request only: a response that
	// streams (a GET's event stream, a long tool call) is not cut by it, as
	// the HTTP server stops the clock once the body has been read.
	ReadTimeout time.Duration
}

// maxLimit is the most HTTPOptions.MaxSessions and MaxInflight may ask for.
const maxLimit = 100_000

// Check checks the options a user sets: MaxSessions and MaxInflight from 1
// to 100,000, and every one of AllowOrigins an origin. Its errors are
// field.Errors naming the option (max_sessions, max_inflight,
// allow_origin).
func (o HTTPOptions) Check() error {
	if o.MaxSessions < 1 || o.MaxSessions > maxLimit {
		return field.Errorf("max_sessions", "must be 1 to %d", maxLimit)
	}
	if o.MaxInflight < 1 || o.MaxInflight > maxLimit {
		return field.Errorf("max_inflight", "must be 1 to %d", maxLimit)
	}
	for _, origin := range o.AllowOrigins {
		if !strings.HasPrefix(origin, "http://") && !strings.HasPrefix(origin, "https://") {
			return field.Errorf("allow_origin", "%q is not an origin (want http://HOST[:PORT] or https://HOST[:PORT])", origin)
		}
	}
	return nil
}

// The HTTP defaults.
const (
	DefaultMaxSessions = 256
	DefaultIdleTimeout = 5 * time.Minute
	DefaultReadTimeout = 30 * time.Second
	// headerTimeout bounds the headers of a request, within ReadTimeout.
	headerTimeout = 10 * time.Second
)

// ErrNoToken is ServeListener's refusal to serve an address beyond loopback
// without a bearer token.
var ErrNoToken = errors.New("an address beyond loopback needs a bearer token")

// ServeListener serves streamable HTTP on ln, at HTTPPath, until ctx is done,
// then shuts down gracefully as Serve does and closes ln. What it serves, and
// to whom, is Options.HTTP; a listener beyond loopback without a token is
// refused with ErrNoToken. It returns the listener's error, if it fails, and
// nil after a shutdown.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener) error {
	o := s.opts.HTTP
	if o.Token == "" && !Loopback(ln.Addr().String()) {
		ln.Close()
		return fmt.Errorf("serving %s: %w", ln.Addr(), ErrNoToken)
	}
	g, err := newGuard(s, o)
	if err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, g)
	read := o.ReadTimeout
	if read <= 0 {
		read = DefaultReadTimeout
	}
	// ReadTimeout runs from the start of a request until its body is read:
	// net/http clears the connection's read deadline when the handler has
	// read the body to its end (or at once for a request without one, such
	// as the GET of an event stream), so that what the handler then streams
	// is not cut.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: min(headerTimeout, read), ReadTimeout: read, IdleTimeout: 2 * time.Minute,
		ErrorLog:    log.New(s.warnWriter(), "notesbench serve: ", 0),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	// A connection that has begun no request is one Shutdown would wait five
	// seconds for before it counts it idle, and a client's pool may hold one
	// it never uses: once Shutdown has closed the listener, those close.
	var fresh freshConns
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		fresh.track(c, st)
		if st == http.StateClosed || st == http.StateHijacked {
			s.forgetConn(c)
		}
	}
	srv.RegisterOnShutdown(fresh.closeAll)
	// Every request's context names its connection, which tells the
	// stateless clients of one clientInfo apart in a history (record.go).
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }
	fl := &fdListener{Listener: ln, warn: s.warnf, now: time.Now, closed: make(chan struct{})}
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(fl) }()
	select {
	case err := <-failed:
		return err
	case <-ctx.Done():
	}
	s.drain(drainLimit)
	// Ending the MCP sessions ends their open streams, so that Shutdown has
	// only idle connections left to close.
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-failed; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// guard is what stands before the SDK's handlers: the Host, Origin and token
// checks, and the session rules (a session-less request must be an
// initialize, and a new session must find a free slot, or speak the
// stateless protocol, and find a free slot among the requests in flight).
type guard struct {
	s         *Server
	h         http.Handler  // sessions (2025-11-25 and before)
	stateless http.Handler  // requests of their own (2026-07-28)
	inflight  chan struct{} // one token per stateless request served
	token     [sha256.Size]byte
	auth      bool
	origins   map[string]bool
	hosts     map[string]bool
	slots     chan struct{} // one token per open session
	idle      time.Duration
}

func newGuard(s *Server, o HTTPOptions) (*guard, error) {
	g := &guard{s: s, origins: map[string]bool{}, hosts: map[string]bool{}, idle: o.IdleTimeout}
	if o.Token != "" {
		g.auth, g.token = true, sha256.Sum256([]byte(o.Token))
	}
	for _, raw := range o.AllowOrigins {
		origin, err := normalOrigin(raw)
		if err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w", raw, err)
		}
		g.origins[origin] = true
	}
	for _, h := range o.AllowHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h == "" || strings.ContainsAny(h, "/ ") {
			return nil, fmt.Errorf("allowed host %q is not a host name", h)
		}
		g.hosts[h] = true
	}
	maxSessions := o.MaxSessions
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	g.slots = make(chan struct{}, maxSessions)
	maxInflight := o.MaxInflight
	if maxInflight <= 0 {
		maxInflight = DefaultMaxInflight
	}
	g.inflight = make(chan struct{}, maxInflight)
	g.stateless = newStatelessHandler(s)
	if g.idle <= 0 {
		g.idle = DefaultIdleTimeout
	}
	g.h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		JSONResponse:   true,
		SessionTimeout: g.idle,
		// The guard checks the Host of every request, on any address.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxMessageBytes,
	})
	return g, nil
}

// normalOrigin returns an origin as browsers send it: scheme://host[:port],
// lower case, without a path.
func normalOrigin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return "", err
	case u.Scheme != "http" && u.Scheme != "https":
		return "", errors.New("want http://HOST[:PORT] or https://HOST[:PORT]")
	case u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil:
		return "", errors.New("an origin is a scheme and a host, with no path")
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostOK(r) {
		refuse(w, http.StatusForbidden, fmt.Sprintf("Forbidden: the Host %q is not served here", r.Host))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.originOK(origin, r.Host) {
		refuse(w, http.StatusForbidden, fmt.Sprintf("Forbidden: the Origin %q is not allowed", origin))
		return
	}
	if g.auth && !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="notesbench serve"`)
		refuse(w, http.StatusUnauthorized, "Unauthorized: send the server's token as Authorization: Bearer TOKEN")
		return
	}
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
		g.open(w, r)
		return
	}
	g.h.ServeHTTP(w, r)
}

// refuse answers a request the guard turns away, from its headers alone, and
// closes the connection without reading its body: net/http would otherwise
// read up to 256 KiB of it, before the reply and after, at whatever pace the
// client sends it, so that a client trickling a body held the connection for
// ever without ever seeing the refusal.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Connection", "close")
	// A deadline already passed fails the read that looks for the body's end.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	http.Error(w, msg, status)
}

// hostOK reports whether the request's Host is one the server answers to: a
// loopback name, an allowed host, or the IP address the connection came to.
func (g *guard) hostOK(r *http.Request) bool {
	host := strings.ToLower(r.Host)
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if name == "" {
		return false
	}
	if isLoopbackName(name) || g.hosts[host] || g.hosts[name] {
		return true
	}
	ip := net.ParseIP(name)
	if ip == nil {
		return false
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := local.(*net.TCPAddr)
	return ok && tcp.IP.Equal(ip)
}

// originOK reports whether a browser's Origin may call: an allowed origin, or
// the server's own (the Host, already checked).
func (g *guard) originOK(origin, host string) bool {
	o, err := normalOrigin(origin)
	if err != nil {
		return false
	}
	if g.origins[o] {
		return true
	}
	_, h, _ := strings.Cut(o, "://")
	return h == strings.ToLower(host)
}

// authorized compares the request's bearer token with the server's, in time
// that does not depend on either.
func (g *guard) authorized(r *http.Request) bool {
	const prefix = "Bearer "
	got := r.Header.Get("Authorization")
	if len(got) < len(prefix) || !strings.EqualFold(got[:len(prefix)], prefix) {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got[len(prefix):])))
	return subtle.ConstantTimeCompare(sum[:], g.token[:]) == 1
}

// open serves a POST without a session ID: a request of the stateless
// protocol (serveStateless; an initialize too, which that protocol answers
// as a method it does not have), or an initialize, which opens a session if one
// of the MaxSessions slots is free. The slot is given back when the session
// ends: closed by the client, timed out idle, or shut down.
func (g *guard) open(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMessageBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("Request Entity Too Large: a message of more than %d bytes", MaxMessageBytes))
			return
		}
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "Bad Request: reading the body: "+err.Error())
		return
	}
	id, init, meta := sessionless(body)
	if meta || r.Header.Get("Mcp-Protocol-Version") >= StatelessVersion {
		g.serveStateless(w, r, body, id)
		return
	}
	if !init {
		writeError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
			"Bad Request: no Mcp-Session-Id header: open a session with initialize, then send its Mcp-Session-Id with every request, "+
				"or speak protocol "+StatelessVersion+" (an Mcp-Protocol-Version header and _meta in every request), which needs no session")
		return
	}
	select {
	case g.slots <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "60")
		writeError(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError,
			fmt.Sprintf("Service Unavailable: %s open, the most this server serves at once: end one (DELETE with its Mcp-Session-Id), or wait until one has been idle for %v", plural.Count(cap(g.slots), "session"), g.idle))
		return
	}
	release := sync.OnceFunc(func() { <-g.slots })
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	g.h.ServeHTTP(w, r)
	sid := w.Header().Get("Mcp-Session-Id")
	if sid == "" || !g.s.adopt(sid, release) {
		release()
	}
}

// writeError writes a JSON-RPC error response with an HTTP status.
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	b, err := encodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// adopt finds the MCP session with the given ID and calls release when it
// ends. It reports false when there is no such session (its initialize
// failed, or it already ended) or the server is shutting down, which then
// closes it.
func (s *Server) adopt(sid string, release func()) bool {
	var found *mcp.ServerSession
	for ss := range s.mcp.Sessions() {
		if ss.ID() == sid {
			found = ss
			break
		}
	}
	if found == nil {
		return false
	}
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		found.Close()
		return false
	}
	s.trackLocked(found, release)
	s.mu.Unlock()
	return true
}

// fdListener is a listener that outlasts running out of file descriptors: an
// Accept that fails for want of one waits (5 ms, doubling up to a second) and
// tries again, rather than handing the error to the HTTP server, which would
// log it on every retry. It tells the operator when it starts, and again
// only a minute or more after it last did: at the limit, each descriptor
// that frees lets one connection in before the next Accept fails again,
// which is no news.
type fdListener struct {
	net.Listener
	warn      func(format string, args ...any)
	now       func() time.Time
	warned    time.Time // Accept is called from one goroutine
	closed    chan struct{}
	closeOnce sync.Once
}

// freshConns are the connections of an http.Server that have begun no
// request (http.StateNew). Once closeAll has run, a connection the server
// accepted before its listener closed but tells of only now closes at once.
type freshConns struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// track is the server's ConnState hook.
func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st != http.StateNew {
		delete(f.conns, c)
		return
	}
	if f.closed {
		c.Close()
		return
	}
	if f.conns == nil {
		f.conns = map[net.Conn]struct{}{}
	}
	f.conns[c] = struct{}{}
}

// closeAll closes every connection that has begun no request.
func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
	f.closed = true
}

// fdWarnEvery is how long after its last warning an fdListener stays quiet.
const fdWarnEvery = time.Minute

func (l *fdListener) Accept() (net.Conn, error) {
	delay := 5 * time.Millisecond
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) {
			return nil, err
		}
		if now := l.now(); l.warned.IsZero() || now.Sub(l.warned) >= fdWarnEvery {
			l.warned = now
			l.warn("out of file descriptors (%v): new connections wait until some close", err)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-l.closed:
			t.Stop()
			return nil, net.ErrClosed
		}
		delay = min(2*delay, time.Second)
	}
}

func (l *fdListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// warnf writes one line to Options.Warn.
func (s *Server) warnf(format string, args ...any) {
	if s.opts.Warn == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Warn, "notesbench serve: "+format+"\n", args...)
}

// warnWriter is Options.Warn, or nowhere.
func (s *Server) warnWriter() io.Writer {
	if s.opts.Warn == nil {
		return io.Discard
	}
	return s.opts.Warn
}
