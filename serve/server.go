package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
)

// Options configure a Server. The zero value serves the seven tools alone,
// logs nothing and says nothing of what it serves.
type Options struct {
	// Version is the server's version in the MCP handshake.
	Version string
	// Describe says in a few words what serves the contract, for
	// notesbench_describe: "SQLite 3.50.4, file notesbench.db".
	Describe string
	// Variant is the contract variant the Backend serves, for
	// notesbench_describe. Its zero fields mean the published defaults.
	Variant contract.Variant
	// Extensions also lists the notesbench_ extension tools (see the package
	// documentation).
	Extensions bool
	// Log, when set, gets one line per tool call.
	Log io.Writer
}

// Server is an MCP server of one Backend. Serve it over any number of
// transports at once; Close it when they have returned.
type Server struct {
	b      contract.Backend
	opts   Options
	mcp    *mcp.Server
	person bool // the Backend's sessions implement contract.Person

	// strategy is how calls get a contract session; see BenchmarkSessionStrategy.
	strategy strategy

	mu       sync.Mutex
	draining bool
	inflight sync.WaitGroup
	pools    map[*mcp.ServerSession]*pool
	nextID   int
	watchers sync.WaitGroup

	logMu sync.Mutex
}

// ExtensionPrefix starts the name of every extension tool.
const ExtensionPrefix = "notesbench_"

// MetaExtension is the _meta key that marks an extension tool.
const MetaExtension = "notesbench/extension"

// New makes a server of b. It opens one session to learn whether b offers the
// person's actions. The Server owns b from now on: Close closes it.
func New(ctx context.Context, b contract.Backend, opts Options) (*Server, error) {
	probe, err := b.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening a session: %w", err)
	}
	_, person := probe.(contract.Person)
	if err := probe.Close(); err != nil {
		return nil, fmt.Errorf("closing a session: %w", err)
	}
	s := &Server{b: b, opts: opts, person: person, pools: map[*mcp.ServerSession]*pool{}}
	instructions := "The osFoundry Notes write contract: every write names the expected_version it read and an idempotency_key."
	if opts.Extensions {
		instructions += " Tools whose names start with " + ExtensionPrefix + " are notesbench's extensions, not part of the Notes contract."
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "notesbench", Title: "notesbench serve", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions})
	for _, t := range contract.Tools() {
		s.mcp.AddTool(contractTool(t), s.handler(t.Name, func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
			return contract.Call(ctx, cs, t.Name, args)
		}))
	}
	if opts.Extensions {
		for _, x := range s.extensions() {
			s.mcp.AddTool(x.tool, s.handler(x.tool.Name, x.call))
		}
	}
	return s, nil
}

// MCP returns the SDK server, to connect it to a transport of one's own.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// contractTool turns a contract tool into the SDK's: the raw schema as it is,
// and securitySchemes, which the SDK's Tool lacks, under _meta.
func contractTool(t contract.Tool) *mcp.Tool {
	destructive := t.Annotations.DestructiveHint
	tool := &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.Annotations.ReadOnlyHint, DestructiveHint: &destructive},
	}
	if len(t.SecuritySchemes) > 0 {
		tool.Meta = mcp.Meta{"securitySchemes": t.SecuritySchemes}
	}
	return tool
}

// callFunc makes one call of a tool on a contract session and returns the
// result object; a contract outcome is a result object, not an error.
type callFunc func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error)

// errShuttingDown answers a call that arrives during a graceful shutdown.
var errShuttingDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is shutting down"}

// handler wraps a call in what every tool shares: the shutdown gate, the
// arguments check, a contract session from the MCP session's pool, the result
// and the log line.
func (s *Server) handler(tool string, call callFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		p, ok := s.begin(req.Session)
		if !ok {
			return nil, errShuttingDown
		}
		defer s.inflight.Done()
		args := bytes.TrimSpace(req.Params.Arguments)
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			args = []byte("{}")
		}
		if args[0] != '{' {
			s.logf(p, tool, start, "protocol error: arguments are not a JSON object")
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: arguments must be a JSON object", tool)}
		}
		out, err := p.call(ctx, func(cs contract.Session) (json.RawMessage, error) { return call(ctx, cs, args) })
		if err != nil {
			s.logf(p, tool, start, "failure: "+err.Error())
			if ctx.Err() != nil {
				return nil, ctx.Err() // the client cancelled: the SDK answers
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %v", tool, err)}
		}
		outcome, isErr := outcomeOf(out)
		s.logf(p, tool, start, outcome)
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(out)}},
			StructuredContent: out,
			IsError:           isErr,
		}, nil
	}
}

// outcomeOf says in a word or two what a result object reports, and whether
// it is a contract outcome reported as an error.
func outcomeOf(out json.RawMessage) (string, bool) {
	var r struct {
		Error    string `json:"error"`
		Field    string `json:"field"`
		Replayed bool   `json:"replayed"`
	}
	_ = json.Unmarshal(out, &r)
	switch {
	case r.Error != "" && r.Field != "":
		return r.Error + " " + r.Field, true
	case r.Error != "":
		return r.Error, true
	case r.Replayed:
		return "replayed", false
	}
	return "ok", false
}

// begin admits a call unless the server is shutting down, and returns the
// pool of its MCP session.
func (s *Server) begin(ss *mcp.ServerSession) (*pool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return nil, false
	}
	s.inflight.Add(1)
	p, ok := s.pools[ss]
	if !ok {
		s.nextID++
		p = &pool{b: s.b, id: s.nextID, strategy: s.strategy}
		s.pools[ss] = p
		if ss != nil {
			// The pool lives as long as its MCP session.
			s.watchers.Go(func() {
				_ = ss.Wait()
				s.mu.Lock()
				delete(s.pools, ss)
				s.mu.Unlock()
				p.close()
			})
		}
	}
	return p, true
}

// drain refuses new calls and waits for those in flight, at most for limit.
// It reports whether they all finished.
func (s *Server) drain(limit time.Duration) bool {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(done)
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// Close closes every MCP session still open, their contract sessions and the
// Backend. Call it after the transports have returned.
func (s *Server) Close() error {
	s.drain(drainLimit)
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	s.watchers.Wait()
	s.mu.Lock()
	var errs []error
	for ss, p := range s.pools {
		errs = append(errs, p.close())
		delete(s.pools, ss)
	}
	s.mu.Unlock()
	errs = append(errs, s.b.Close())
	return errors.Join(errs...)
}

// logf writes one line for a call: time, session, tool, duration, outcome.
func (s *Server) logf(p *pool, tool string, start time.Time, outcome string) {
	if s.opts.Log == nil {
		return
	}
	d := time.Since(start)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, "%s session %d %s %s %s\n", start.UTC().Format("15:04:05.000000"), p.id, tool,
		d.Round(time.Microsecond), outcome)
}
