package mcpclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// proxy is the loopback HTTP proxy a Target runs in front of a server over
// HTTP when it makes faults on the wire: every request of a link with a
// wire goes through it to the server. A write call that takes a lost reply
// is forwarded, its whole response read, and the client's connection closed
// before any of it reaches the client; one that takes a duplicate is sent
// to the server twice at once, and the client gets the first's response.
// Everything else is forwarded as it is, streamed.
type proxy struct {
	upstream *url.URL
	base     string // http://127.0.0.1:PORT, where the proxy listens
	srv      *http.Server
	client   *http.Client
	tr       *http.Transport

	mu    sync.Mutex
	wires map[string]*wire
	seq   int

	// The copies of duplicated calls run on a context of the proxy's own,
	// so that a copy reaches the server however soon the first is
	// answered; close ends and waits for them.
	dupCtx    context.Context
	dupCancel context.CancelFunc
	dups      sync.WaitGroup
}

// wireHeader names, on a request to the proxy, the wire of the link that
// sent it; the proxy does not forward it.
const wireHeader = "Notesbench-Wire"

// maxProxyBody bounds a request the proxy reads whole.
const maxProxyBody = 64 << 20

// proxyWait bounds how long the proxy waits for the response of a call
// whose reply it loses or duplicates.
const proxyWait = 2 * time.Minute

// newProxy starts a proxy to the server at upstream on a loopback port.
func newProxy(upstream string) (*proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the proxy of the faults: %w", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	px := &proxy{upstream: u, base: "http://" + ln.Addr().String(), client: &http.Client{Transport: tr}, tr: tr, wires: map[string]*wire{}}
	px.dupCtx, px.dupCancel = context.WithCancel(context.Background())
	px.srv = &http.Server{Handler: px, ReadHeaderTimeout: 10 * time.Second}
	go px.srv.Serve(ln)
	return px, nil
}

// close stops the proxy.
func (px *proxy) close() {
	px.srv.Close()
	px.dupCancel()
	px.dups.Wait()
	px.tr.CloseIdleConnections()
}

// route returns the endpoint a link with wire w reaches the server at,
// through the proxy, and the round tripper that names its wire on every
// request.
func (px *proxy) route(upstream string, tr http.RoundTripper, w *wire) (string, http.RoundTripper) {
	px.mu.Lock()
	px.seq++
	id := strconv.Itoa(px.seq)
	px.wires[id] = w
	px.mu.Unlock()
	endpoint := px.base + px.upstream.RequestURI()
	return endpoint, namedWire{rt: tr, id: id}
}

// namedWire adds the wire's name to every request.
type namedWire struct {
	rt http.RoundTripper
	id string
}

func (n namedWire) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set(wireHeader, n.id)
	return n.rt.RoundTrip(req)
}

func (px *proxy) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	px.mu.Lock()
	w := px.wires[req.Header.Get(wireHeader)]
	px.mu.Unlock()
	body, err := io.ReadAll(http.MaxBytesReader(rw, req.Body, maxProxyBody))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	var pl plan
	if req.Method == http.MethodPost {
		pl = w.planFor(body)
	}
	ctx := req.Context()
	if pl.lose || pl.dup != nil {
		// The server must see the call through, whatever the client does.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), proxyWait)
		defer cancel()
	}
	if pl.dup != nil {
		// The copy's context is the proxy's, not this handler's: the
		// handler returns once the first is answered, and the copy must
		// reach the server all the same.
		dupCtx, cancel := context.WithTimeout(px.dupCtx, proxyWait)
		dreq := req.Clone(dupCtx) // the handler's request is not to be used after it returns
		px.dups.Go(func() {
			defer cancel()
			if resp, err := px.forward(dupCtx, dreq, pl.dup); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
		w.sentTwice(pl, "the proxy")
	}
	resp, err := px.forward(ctx, req, body)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if pl.lose {
		io.Copy(io.Discard, resp.Body) // the server has answered in full
		w.lost(pl.tool, pl.id, "the proxy")
		if hj, ok := rw.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // closes the connection without a response
	}
	h := rw.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	rw.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(rw)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := rw.Write(buf[:n]); werr != nil {
				return
			}
			rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// forward sends req, with body, to the server.
func (px *proxy) forward(ctx context.Context, req *http.Request, body []byte) (*http.Response, error) {
	u := *px.upstream
	u.Path, u.RawPath, u.RawQuery = req.URL.Path, req.URL.RawPath, req.URL.RawQuery
	out, err := http.NewRequestWithContext(ctx, req.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		if k != wireHeader && k != "Connection" && k != "Content-Length" {
			out.Header[k] = v
		}
	}
	return px.client.Do(out)
}
