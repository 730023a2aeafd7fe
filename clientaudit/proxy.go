package clientaudit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The write tools of the contract: the requests a fault may hit.
var writeTools = map[string]bool{"edit_note_tab": true, "create_note_tab": true, "add_note_source": true}

// maxBody bounds a request body the proxy reads whole.
const maxBody = 8 << 20

// A request is one write request the proxy received, in the order received.
type request struct {
	at      time.Duration // since the run began
	id      string        // the JSON-RPC id, as sent
	tool    string
	key     string // the idempotency key; empty when none was sent
	args    string // a digest of the arguments
	fault   string // the fault that hit it; empty for none
	outcome string // what the server answered: committed, replayed, an error's name
}

// ledger keeps what a run's server received of the driver's library: every
// write request (tools/call of a write tool), in order, with the fault that
// hit it and what the server answered, and what the library said of itself.
// It decides which writes the fault hits: the ones whose key the plan names
// by the order of its first request.
type ledger struct {
	fault WireFault
	plan  map[int]bool
	start time.Time
	// sync waits until the driver's lines written so far are taken, so that
	// a request is timed after the calls the driver reported before it.
	sync func()

	mu       sync.Mutex
	keys     map[string]bool // the keys seen
	fresh    int             // how many keys were seen first
	requests []request
	injected int
	client   string // clientInfo of an initialize, or of a request's _meta
	protocol string // the last protocol version a request named
}

func newLedger(f WireFault, plan map[int]bool, start time.Time, sync func()) *ledger {
	return &ledger{fault: f, plan: plan, start: start, sync: sync, keys: map[string]bool{}}
}

// heard takes what a message says of the library: its clientInfo.
func (l *ledger) heard(m message) {
	info := m.Params.ClientInfo
	if raw, ok := m.Params.Meta[metaClientInfo]; ok && info == nil {
		_ = json.Unmarshal(raw, &info)
	}
	if info != nil && info.Name != "" {
		l.mu.Lock()
		l.client = strings.TrimSpace(info.Name + " " + info.Version)
		l.mu.Unlock()
	}
	var meta string
	if raw, ok := m.Params.Meta[metaProtocolVersion]; ok && json.Unmarshal(raw, &meta) == nil && meta != "" {
		l.speaks(meta)
	} else if m.Method == "initialize" && m.Params.ProtocolVersion != "" {
		l.speaks(m.Params.ProtocolVersion)
	}
}

func (l *ledger) speaks(protocol string) {
	l.mu.Lock()
	l.protocol = protocol
	l.mu.Unlock()
}

// begin records a write request and says which request it is and the fault
// that hits it ("" for none).
func (l *ledger) begin(m message) (n int, fault string) {
	var args struct {
		Key string `json:"idempotency_key"`
	}
	_ = json.Unmarshal(m.Params.Arguments, &args)
	sum := sha256.Sum256(m.Params.Arguments)
	l.sync()
	req := request{at: time.Since(l.start), id: string(m.ID), tool: m.Params.Name, key: args.Key, args: hex.EncodeToString(sum[:6])}
	l.mu.Lock()
	defer l.mu.Unlock()
	if args.Key != "" && !l.keys[args.Key] {
		l.keys[args.Key] = true
		l.fresh++
		if l.plan[l.fresh] && l.fault.Kind != "" {
			req.fault = l.fault.Kind
			l.injected++
		}
	}
	l.requests = append(l.requests, req)
	return len(l.requests) - 1, req.fault
}

// answered records what the server answered request n.
func (l *ledger) answered(n int, outcome string) {
	l.mu.Lock()
	l.requests[n].outcome = outcome
	l.mu.Unlock()
}

// seen returns what the ledger holds.
func (l *ledger) seen() (reqs []request, injected int, client, protocol string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]request(nil), l.requests...), l.injected, l.client, l.protocol
}

// proxy stands between the driver's library and the server over HTTP: it
// passes every request on, and hits the writes the ledger names with the
// run's fault.
type proxy struct {
	*ledger
	upstream *url.URL
	pass     *httputil.ReverseProxy
	client   *http.Client
	hold     time.Duration
	slow     time.Duration
	// ctx ends with the run: a held reply is let go, a forward stops.
	ctx context.Context
}

func newProxy(ctx context.Context, upstream string, l *ledger, hold, slow time.Duration) (*proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext, MaxIdleConnsPerHost: 16}
	p := &proxy{ledger: l, upstream: u, client: &http.Client{Transport: tr}, hold: hold, slow: slow, ctx: ctx}
	p.pass = &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(u); r.Out.URL.Path = u.Path; r.Out.Host = u.Host },
		Transport:     tr,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0), // a stream the run's end cuts is no news
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "notesbench proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	return p, nil
}

// close lets the proxy's connections to the server go.
func (p *proxy) close() { p.client.CloseIdleConnections() }

// message is what the proxy reads of a JSON-RPC request.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name            string                     `json:"name"`
		Arguments       json.RawMessage            `json:"arguments"`
		ClientInfo      *implementation            `json:"clientInfo"`
		ProtocolVersion string                     `json:"protocolVersion"`
		Meta            map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// implementation is a clientInfo: in initialize's parameters, or (from
// protocol 2026-07-28 on, where there is no initialize) in every request's
// _meta.
type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// The _meta keys of a request's clientInfo and protocol version (from
// 2026-07-28 on, where there is no initialize).
const (
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
)

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		p.speaks(v)
	}
	if r.Method != http.MethodPost {
		p.pass.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "notesbench proxy: reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var m message
	if json.Unmarshal(body, &m) == nil {
		p.heard(m)
		if m.Method == "tools/call" && writeTools[m.Params.Name] {
			p.write(w, r, body, m)
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	p.pass.ServeHTTP(w, r)
}

// write passes one write request on, with the fault when the plan names it.
func (p *proxy) write(w http.ResponseWriter, r *http.Request, body []byte, m message) {
	n, fault := p.begin(m)
	set := func(outcome string) { p.answered(n, outcome) }
	if fault == Refuse503 {
		set("not sent: 503")
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	// The write goes on whatever the client does meanwhile: a lost reply is
	// one the server sent.
	out, err := http.NewRequestWithContext(p.ctx, http.MethodPost, p.upstream.String(), bytes.NewReader(body))
	if err != nil {
		set("not sent: " + err.Error())
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range r.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length":
			continue
		}
		out.Header[k] = vs
	}
	resp, err := p.client.Do(out)
	if err != nil {
		set("not answered: " + err.Error())
		http.Error(w, "notesbench proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	reply, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		set("answer cut: " + err.Error())
		http.Error(w, "notesbench proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	set(outcomeOf(resp.StatusCode, reply))

	send := func() {
		for k, vs := range resp.Header {
			if k == "Content-Length" {
				continue
			}
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
		w.WriteHeader(resp.StatusCode)
		w.Write(reply)
	}
	switch fault {
	case "":
		send()
	case Reply502:
		http.Error(w, "Bad Gateway", http.StatusBadGateway)
	case CutStream:
		cut(w, resp, reply)
	case LoseReply:
		if waited(p.hold, r.Context().Done(), p.ctx.Done()) {
			drop(w)
		}
	case SlowReply:
		if waited(p.slow, r.Context().Done(), p.ctx.Done()) {
			send()
		}
	default: // Run refuses a fault not made over HTTP
		http.Error(w, "notesbench proxy: no fault "+fault+" over HTTP", http.StatusInternalServerError)
	}
}

// waited waits d, and reports true when it passed before either of stop
// and gone closed: the client is still there, and the run goes on.
func waited(d time.Duration, stop, gone <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	case <-gone:
		return false
	}
}

// drop closes the client's connection with no reply at all.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// cut sends the reply's status and headers and half its body, then closes
// the connection: a response stream broken after the write committed.
func cut(w http.ResponseWriter, resp *http.Response, reply []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	c, buf, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	defer c.Close()
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	for k, vs := range resp.Header {
		if k == "Content-Length" || k == "Connection" {
			continue
		}
		for _, v := range vs {
			fmt.Fprintf(buf, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(buf, "Content-Length: %d\r\nConnection: close\r\n\r\n", len(reply))
	buf.Write(reply[:len(reply)/2])
	buf.Flush()
}

// outcomeOf says what the server answered a write: committed, replayed, the
// error a result object names, or the JSON-RPC error.
func outcomeOf(status int, reply []byte) string {
	if status != http.StatusOK {
		return "HTTP " + strconv.Itoa(status)
	}
	var r struct {
		Result *struct {
			Structured json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(reply, &r) != nil {
		return "unreadable reply"
	}
	if r.Error != nil {
		return "protocol error: " + r.Error.Message
	}
	if r.Result == nil {
		return "no result"
	}
	var res struct {
		Error    string `json:"error"`
		Replayed bool   `json:"replayed"`
	}
	_ = json.Unmarshal(r.Result.Structured, &res)
	switch {
	case res.Error != "":
		return res.Error
	case res.Replayed:
		return "replayed"
	}
	return outcomeCommitted
}

// outcomeCommitted is a write the server made.
const outcomeCommitted = "committed"
