package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/internal/plural"
)

// StatelessVersion is the first MCP protocol version without sessions:
// no initialize, no Mcp-Session-Id, the client's capabilities in every
// request's _meta, server/discover in place of the handshake.
const StatelessVersion = "2026-07-28"

// DefaultMaxInflight bounds the stateless requests served at once when
// HTTPOptions.MaxInflight is 0.
const DefaultMaxInflight = 256

// metaProtocolVersion is the _meta key a 2026-07-28 request names its
// protocol version with.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// newStatelessHandler is the SDK's handler of stateless requests: each one
// a session of its own, made for the request and closed after it, with the
// same limits as the session handler's.
func newStatelessHandler(s *Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxMessageBytes,
	})
}

// sessionless reads a POST without a session ID, a message or a batch, once:
// the ID of its initialize or else of its first message, whether one is an
// initialize (which opens a session, unless the request speaks 2026-07-28,
// which has none), and whether one speaks the stateless protocol by its body: it
// names a protocol version in _meta (the SDK's handler then checks that the
// Mcp-Protocol-Version header agrees), or it is a server/discover. A request
// whose header names 2026-07-28 or later is stateless too.
func sessionless(body []byte) (first jsonrpc.ID, initialize, stateless bool) {
	type message struct {
		Method string `json:"method"`
		ID     any    `json:"id"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	var msgs []message
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return jsonrpc.ID{}, false, false
		}
	} else {
		var m message
		if json.Unmarshal(body, &m) != nil {
			return jsonrpc.ID{}, false, false
		}
		msgs = append(msgs, m)
	}
	for i, m := range msgs {
		id := jsonrpc.ID{}
		switch m.ID.(type) {
		case string, float64:
			id, _ = jsonrpc.MakeID(m.ID)
		}
		if i == 0 || m.Method == "initialize" && !initialize {
			first = id
		}
		if m.Method == "initialize" {
			initialize = true
		}
		if _, ok := m.Params.Meta[metaProtocolVersion]; ok || m.Method == "server/discover" {
			stateless = true
		}
	}
	return first, initialize, stateless
}

// serveStateless serves one stateless request, body read already, if one of
// the MaxInflight slots is free, and otherwise answers 503 with Retry-After.
func (g *guard) serveStateless(w http.ResponseWriter, r *http.Request, body []byte, id jsonrpc.ID) {
	select {
	case g.inflight <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError,
			fmt.Sprintf("Service Unavailable: %s in flight, the most this server serves at once: try again in a second",
				plural.Count(cap(g.inflight), "stateless request")))
		return
	}
	defer func() { <-g.inflight }()
	r.Body = http.NoBody
	if len(body) > 0 {
		r.Body = readCloser{bytes.NewReader(body)}
	}
	r.ContentLength = int64(len(body))
	g.stateless.ServeHTTP(w, r)
}

// readCloser is a body already read, handed on.
type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// forStateless returns the list as a request's result: itself before
// 2026-07-28, and on 2026-07-28 a copy of its own with the resultType and
// cache fields that version requires, which the SDK then marks
// with the server's identity in _meta (the list itself, shared by every
// request, is never written to).
func (l *toolsList) forStateless(req mcp.Request) mcp.Result {
	p, ok := req.GetParams().(*mcp.ListToolsParams)
	if !ok || p == nil {
		return l
	}
	if v, _ := p.Meta[metaProtocolVersion].(string); v < StatelessVersion {
		return l
	}
	out := *l
	out.stateless = stateless{ResultType: "complete", TTLMs: new(0), CacheScope: "public"}
	return &out
}

// stateless is what a 2026-07-28 list result carries beside the list: it is
// complete (no input required), and may be cached for ttlMs by any client
// (0: the published list is served as it is, immediately stale, the SDK's
// own default).
type stateless struct {
	ResultType string `json:"resultType,omitempty"`
	TTLMs      *int   `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}
