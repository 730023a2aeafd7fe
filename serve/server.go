package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/history"
)

// Extensions says to which clients a Server lists the extension tools.
type Extensions int

const (
	// ExtensionsOnRequest lists them to a session whose initialize declares
	// the experimental capability ext.Capability, as notesbench's own client
	// does, and to no other.
	ExtensionsOnRequest Extensions = iota
	// ExtensionsAll lists them to every session.
	ExtensionsAll
	// ExtensionsNone lists them to none: a server of the seven tools alone.
	ExtensionsNone
)

// ExtensionSettings are the words that name an Extensions, in the order of
// its values: on-request, all, none.
var ExtensionSettings = contract.NewEnum("extensions setting", "on-request", "all", "none")

// ParseExtensions returns the Extensions a word of ExtensionSettings names.
func ParseExtensions(word string) (Extensions, error) {
	w, err := ExtensionSettings.Parse(word)
	if err != nil {
		return 0, err
	}
	return Extensions(slices.Index(ExtensionSettings.Values, w)), nil
}

// Options configure a Server. The zero value serves the seven tools, lists
// the extension tools to the clients that ask for them, logs nothing and
// serves HTTP with the defaults below.
type Options struct {
	// Version is the server's version in the MCP handshake.
	Version string
	// Describe says in a few words what serves the contract, for
	// notesbench_describe: "SQLite 3.50.4, file notesbench.db". It should
	// name no absolute path: it is sent to every client that asks.
	Describe string
	// Variant is the contract variant the Backend serves, for
	// notesbench_describe. Its zero fields mean the published defaults.
	Variant contract.Variant
	// Extensions says to which clients the extension tools are listed.
	Extensions Extensions
	// Note names a Note that exists, for the instructions the server gives a
	// client: a plain client can start with list_note_tabs on it.
	Note string
	// Redact lists strings no reply may carry (the database's folder): each
	// is cut from the message of a failure before it is sent, which then
	// names the file alone.
	Redact []string
	// MaxConns bounds the contract sessions (database connections) open at
	// once, shared by every MCP session; 0 means DefaultMaxConns. A call that
	// finds them all busy waits for one.
	MaxConns int
	// Log, when set, gets one line per tool call.
	Log io.Writer
	// Warn, when set, gets what the operator must know and no client is told:
	// running out of file descriptors, a failure of the HTTP server itself.
	// Each is one line, not repeated while it lasts.
	Warn io.Writer

	// HTTP is how ServeListener serves.
	HTTP HTTPOptions

	// History, when set, records every call of every session, and every
	// edit of the person (StartPerson); Close ends it (see record.go).
	History *history.Recorder
}

// DefaultMaxConns is the number of contract sessions a Server keeps open at
// most when Options.MaxConns is 0.
const DefaultMaxConns = 32

// Server is an MCP server of one Backend. Serve it over any number of
// transports at once; Close it when they have returned.
type Server struct {
	b      contract.Backend
	opts   Options
	mcp    *mcp.Server
	person bool // the Backend's sessions implement contract.Person
	pool   *pool

	// The tools/list results: the seven tools as published, and with the
	// extension tools after them.
	listPlain, listExt *toolsList

	mu       sync.Mutex
	draining bool
	inflight sync.WaitGroup
	sessions map[*mcp.ServerSession]*session
	nextID   int
	watchers sync.WaitGroup

	logMu sync.Mutex

	rec recorder // the history and the person (record.go, person.go)
}

// session is what the Server keeps of one MCP session: its number in the log
// and, over HTTP, the slot it holds under HTTPOptions.MaxSessions.
type session struct {
	id      int
	release func() // gives back the slot; nil for a session that holds none
}

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
	maxConns := opts.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	s := &Server{b: b, opts: opts, person: person, pool: newPool(b, maxConns), sessions: map[*mcp.ServerSession]*session{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "notesbench", Title: "notesbench serve", Version: opts.Version},
		&mcp.ServerOptions{Instructions: s.instructions(), Capabilities: capabilities()})
	var plain, withExt []any
	for _, t := range contract.Tools() {
		s.mcp.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema},
			s.handler(t.Name, t.Annotations.ReadOnlyHint, func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error) {
				return contract.Call(ctx, cs, t.Name, args)
			}))
		plain = append(plain, t)
	}
	withExt = append(withExt, plain...)
	if opts.Extensions != ExtensionsNone {
		for _, x := range s.extensions() {
			s.mcp.AddTool(&mcp.Tool{Name: x.tool.Name, Description: x.tool.Description, InputSchema: x.tool.InputSchema},
				s.gated(s.handler(x.tool.Name, x.tool.ReadOnly, x.call)))
			withExt = append(withExt, listedExtension(x.tool))
		}
	}
	if s.listPlain, err = newToolsList(plain); err != nil {
		return nil, err
	}
	if s.listExt, err = newToolsList(withExt); err != nil {
		return nil, err
	}
	s.mcp.AddReceivingMiddleware(s.listTools)
	return s, nil
}

// capabilities are what the server declares, in initialize's result and in
// server/discover's: what it answers, and no more. The SDK, left to itself,
// declares tools with listChanged, which serve never sends (its tools are
// added before any session starts, and never change), and no prompts or
// resources, though it answers prompts/list and resources/list (with empty
// lists); 2026-07-28 wants a server that answers them to declare them, and
// a method of a capability not declared refused as method not found. Logging
// is the SDK's default, as logging/setLevel is answered; completions are not
// declared, and completion/complete is refused.
func capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{
		Logging:   &mcp.LoggingCapabilities{},
		Tools:     &mcp.ToolCapabilities{ListChanged: false},
		Prompts:   &mcp.PromptCapabilities{ListChanged: false},
		Resources: &mcp.ResourceCapabilities{ListChanged: false, Subscribe: false},
	}
}

// instructions is what the server tells every client in the handshake.
func (s *Server) instructions() string {
	text := "The osFoundry Notes write contract: every write names the expected_version it read and an idempotency_key."
	if s.opts.Note != "" {
		text += fmt.Sprintf(" A Note to work on: note_id %q; start with list_note_tabs.", s.opts.Note)
	}
	if s.opts.Extensions == ExtensionsAll {
		text += " Tools whose names start with " + ext.Prefix + " are notesbench's extensions, not part of the Notes contract."
	}
	return text
}

// MCP returns the SDK server, to connect it to a transport of one's own.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// InMemory connects a new session to the server in this process, without a
// transport between them, and returns the client's end: a dialer for
// mcpclient.New, which opens a session per call.
func (s *Server) InMemory(ctx context.Context) (mcp.Transport, error) {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.mcp.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	return ct, nil
}

// toolsList is a tools/list result as it goes out: the tools exactly as
// listed, not as the SDK's Tool type would write them (it adds
// idempotentHint: false to every tool, and has no field for the published
// securitySchemes).
type toolsList struct {
	mcp.ResultBase
	Tools []json.RawMessage `json:"tools"`
	// What 2026-07-28 requires of a list result (forStateless), absent before.
	stateless
}

func newToolsList(tools []any) (*toolsList, error) {
	l := &toolsList{Tools: make([]json.RawMessage, len(tools))}
	for i, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		l.Tools[i] = b
	}
	return l, nil
}

// listedExtension is an extension tool as tools/list writes it: marked as an
// extension in _meta.
func listedExtension(t ext.ListedTool) any {
	return struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations struct {
			ReadOnlyHint    bool `json:"readOnlyHint"`
			DestructiveHint bool `json:"destructiveHint"`
		} `json:"annotations"`
		Meta map[string]any `json:"_meta"`
	}{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
		Annotations: struct {
			ReadOnlyHint    bool `json:"readOnlyHint"`
			DestructiveHint bool `json:"destructiveHint"`
		}{t.ReadOnly, !t.ReadOnly}, Meta: map[string]any{ext.MetaKey: true}}
}

// listTools answers tools/list in the SDK's place: the published tools/list,
// with the extension tools after it for a session that may see them.
func (s *Server) listTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		l := s.listPlain
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && s.showsExtensions(ss) {
			l = s.listExt
		}
		return l.forStateless(req), nil
	}
}

// showsExtensions reports whether the session may see and call the extension
// tools.
func (s *Server) showsExtensions(ss *mcp.ServerSession) bool {
	switch s.opts.Extensions {
	case ExtensionsAll:
		return true
	case ExtensionsNone:
		return false
	}
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return false
	}
	_, ok := p.Capabilities.Experimental[ext.Capability]
	return ok
}

// gated refuses an extension tool's call from a session it is not listed to,
// as the SDK refuses a tool it does not know.
func (s *Server) gated(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !s.showsExtensions(req.Session) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", req.Params.Name)}
		}
		return h(ctx, req)
	}
}

// callFunc makes one call of a tool on a contract session and returns the
// result object; a contract outcome is a result object, not an error.
type callFunc func(ctx context.Context, cs contract.Session, args json.RawMessage) (json.RawMessage, error)

// errShuttingDown answers a call that arrives during a graceful shutdown.
var errShuttingDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is shutting down"}

// handler wraps a call in what every tool shares: the shutdown gate, the
// arguments check, a contract session from the pool (a read-only tool's call
// made again after a failure, see pool.call), the result and the log line.
func (s *Server) handler(tool string, readOnly bool, call callFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		sess, ok := s.begin(req.Session)
		if !ok {
			return nil, errShuttingDown
		}
		defer s.inflight.Done()
		args := bytes.TrimSpace(req.Params.Arguments)
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			args = []byte("{}")
		}
		if args[0] != '{' {
			s.logf(sess, tool, start, "protocol error: arguments are not a JSON object")
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: arguments must be a JSON object", tool)}
		}
		out, err := s.pool.call(ctx, readOnly, func(cs contract.Session) (json.RawMessage, error) {
			return call(ctx, s.recorded(ctx, req, sess, cs), args)
		})
		if err != nil {
			s.logf(sess, tool, start, "failure: "+err.Error())
			if ctx.Err() != nil {
				return nil, ctx.Err() // the client cancelled: the SDK answers
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.redact(fmt.Sprintf("%s: %v", tool, err))}
		}
		outcome, isErr := outcomeOf(out)
		s.logf(sess, tool, start, outcome)
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(out)}},
			StructuredContent: out,
			IsError:           isErr,
		}, nil
	}
}

// redact cuts every string of Options.Redact from msg.
func (s *Server) redact(msg string) string {
	for _, r := range s.opts.Redact {
		if r != "" {
			msg = strings.ReplaceAll(msg, r, "")
		}
	}
	return msg
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

// begin admits a call unless the server is shutting down, and returns what
// the server keeps of its MCP session.
func (s *Server) begin(ss *mcp.ServerSession) (*session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return nil, false
	}
	s.inflight.Add(1)
	return s.trackLocked(ss, nil), true
}

// trackLocked returns what the server keeps of an MCP session, made on first
// sight, with release called when the session ends (nil: nothing to give
// back). s.mu must be held.
func (s *Server) trackLocked(ss *mcp.ServerSession, release func()) *session {
	if sess, ok := s.sessions[ss]; ok {
		if sess.release == nil {
			sess.release = release
		}
		return sess
	}
	s.nextID++
	sess := &session{id: s.nextID, release: release}
	if ss == nil {
		return sess
	}
	s.sessions[ss] = sess
	s.watchers.Go(func() {
		_ = ss.Wait()
		s.mu.Lock()
		delete(s.sessions, ss)
		release := sess.release
		s.mu.Unlock()
		s.forget(sess)
		if release != nil {
			release()
		}
	})
	return sess
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

// Close closes every MCP session still open, the contract sessions and the
// Backend. Call it after the transports have returned.
func (s *Server) Close() error {
	s.drain(drainLimit)
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	s.watchers.Wait()
	return errors.Join(s.closeHistory(), s.pool.close(), s.b.Close())
}

// logf writes one line for a call: time, session, tool, duration, outcome.
func (s *Server) logf(sess *session, tool string, start time.Time, outcome string) {
	if s.opts.Log == nil {
		return
	}
	d := time.Since(start)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, "%s session %d %s %s %s\n", start.UTC().Format("15:04:05.000000"), sess.id, tool,
		d.Round(time.Microsecond), outcome)
}

// EnsureNote makes sure the Note exists and reports whether it created it.
// Another process that creates it at the same moment is no error: a
// creation refused as an invalid argument (the contract's refusal of a Note
// that exists, in whatever words the store puts it) is no error when the
// Note exists afterwards.
func EnsureNote(ctx context.Context, b contract.Backend, noteID string) (bool, error) {
	exists, err := noteExists(ctx, b, noteID)
	if err != nil || exists {
		return false, err
	}
	err = b.CreateNote(ctx, noteID)
	var bad *contract.InvalidArgumentError
	if errors.As(err, &bad) {
		if exists, xerr := noteExists(ctx, b, noteID); xerr == nil && exists {
			return false, nil
		}
	}
	return err == nil, err
}

// noteExists reports whether b holds the Note: it lists its tabs, which a
// missing Note refuses with a *contract.NotFoundError.
func noteExists(ctx context.Context, b contract.Backend, noteID string) (bool, error) {
	s, err := b.Session(ctx)
	if err != nil {
		return false, err
	}
	defer s.Close()
	_, err = s.ListNoteTabs(ctx, noteID)
	var nf *contract.NotFoundError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &nf):
		return false, nil
	}
	return false, err
}
