package serve

import (
	"context"
	"errors"
	"net"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// recorder is what a Server keeps to record its calls (Options.History) and
// to let a person edit between them (StartPerson).
type recorder struct {
	// edit is held shared by every call of a client and alone by each edit
	// of the person, so that the person's read and write are one step
	// between the clients' calls: the person never overwrites a client.
	edit sync.RWMutex

	mu      sync.Mutex
	clients map[*session]*history.Client
	// callers records the stateless (2026-07-28) requests of each client,
	// by its clientInfo and the connection they came on: such a request is
	// an MCP session of its own, so the client's reads and writes are one
	// session of the history only when they are kept together by who sent
	// them, and clients of one clientInfo (the editors of one program) are
	// told apart by their connections.
	callers map[caller]*history.Client
	person  *personRun // the person started, nil when none
	// personLog records the person's calls, made on its first edit.
	personLog *history.Client
	closed    bool
}

// recorded returns the contract session a client's call runs on: cs, held
// between the person's edits and, with a history, recorded as a call of the
// MCP session's client, named by its clientInfo.
func (s *Server) recorded(ctx context.Context, req *mcp.CallToolRequest, sess *session, cs contract.Session) contract.Session {
	s.rec.mu.Lock()
	person := s.rec.person != nil
	s.rec.mu.Unlock()
	if s.opts.History == nil && !person {
		return cs
	}
	if s.opts.History != nil {
		cs = s.client(ctx, req, sess).Session(cs)
	}
	return &heldSession{inner: cs, edit: &s.rec.edit}
}

// client returns the recorder of an MCP session's calls, made on its first
// call. The stateless requests of one clientInfo over one connection
// (ctx's, see ServeListener) are recorded as one session, numbered as the
// first of them: each is an MCP session of its own, and an agent's re-read
// after a conflict is judged within its session. A connection is one HTTP
// client's; a client whose requests come over several is several sessions.
func (s *Server) client(ctx context.Context, req *mcp.CallToolRequest, sess *session) *history.Client {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if c, ok := s.rec.clients[sess]; ok {
		return c
	}
	a := agent{Name: "client"}
	if info := req.ClientInfo(); info != nil {
		if info.Name != "" {
			a.Name = info.Name
		}
		a.Version = info.Version
	}
	if req.ProtocolVersion() >= StatelessVersion {
		k := caller{a, connOf(ctx)}
		c, ok := s.rec.callers[k]
		if !ok {
			c = s.opts.History.StatelessClient(a.Name, a.Version, sess.id)
			if s.rec.callers == nil {
				s.rec.callers = map[caller]*history.Client{}
			}
			s.rec.callers[k] = c
		}
		return c
	}
	c := s.opts.History.Client(a.Name, a.Version, sess.id)
	if s.rec.clients == nil {
		s.rec.clients = map[*session]*history.Client{}
	}
	s.rec.clients[sess] = c
	return c
}

// forget drops what the server kept of a session that ended.
func (s *Server) forget(sess *session) {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	delete(s.rec.clients, sess)
}

// forgetConn drops what the server kept of the stateless requests of a
// connection that closed: the client's next requests, on a connection of
// their own, are another session.
func (s *Server) forgetConn(c net.Conn) {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	for k := range s.rec.callers {
		if k.conn == c {
			delete(s.rec.callers, k)
		}
	}
}

// connKey is the context key of the connection an HTTP request came on.
type connKey struct{}

// connOf returns the connection ctx's request came on, nil when it came on
// none (stdio).
func connOf(ctx context.Context) net.Conn {
	c, _ := ctx.Value(connKey{}).(net.Conn)
	return c
}

// closeHistory stops the person, if one was started, and ends the history,
// if one is recorded, with the final state of every Note a call named, read
// through a session of its own. Call it when no call is in flight.
func (s *Server) closeHistory() error {
	s.rec.mu.Lock()
	if s.rec.closed {
		s.rec.mu.Unlock()
		return nil
	}
	s.rec.closed = true
	p := s.rec.person
	s.rec.mu.Unlock()
	if p != nil {
		p.stop()
	}
	if s.opts.History == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), drainLimit)
	defer cancel()
	cs, err := s.b.Session(ctx)
	if err != nil {
		return errors.Join(err, s.opts.History.Close(ctx, nil))
	}
	err = s.opts.History.Close(ctx, cs)
	return errors.Join(err, cs.Close())
}

// heldSession is a contract session whose every call holds edit shared: a
// person's edit waits for the calls in flight, and the calls that come
// meanwhile wait for it.
type heldSession struct {
	inner contract.Session
	edit  *sync.RWMutex
}

var (
	_ contract.Session = (*heldSession)(nil)
	_ contract.Person  = (*heldSession)(nil)
)

func held[T any](h *heldSession, call func() (T, error)) (T, error) {
	h.edit.RLock()
	defer h.edit.RUnlock()
	return call()
}

func (h *heldSession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	return held(h, func() (contract.TabList, error) { return h.inner.ListNoteTabs(ctx, noteID) })
}

func (h *heldSession) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	return held(h, func() (contract.TabContent, error) { return h.inner.ReadNoteTab(ctx, noteID, tabID) })
}

func (h *heldSession) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return held(h, func() (contract.SheetRange, error) { return h.inner.ReadSheetRange(ctx, req) })
}

func (h *heldSession) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	return held(h, func() (contract.AttachmentPage, error) { return h.inner.ListNoteAttachments(ctx, req) })
}

func (h *heldSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	return held(h, func() (contract.EditResult, error) { return h.inner.EditNoteTab(ctx, req) })
}

func (h *heldSession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	return held(h, func() (contract.CreateResult, error) { return h.inner.CreateNoteTab(ctx, req) })
}

func (h *heldSession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	return held(h, func() (contract.SourceResult, error) { return h.inner.AddNoteSource(ctx, req) })
}

// person returns the inner session's person's actions. The server lists
// those tools only when its Backend's sessions offer them.
func (h *heldSession) person() contract.Person { return h.inner.(contract.Person) }

func (h *heldSession) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	_, err := held(h, func() (struct{}, error) { return struct{}{}, h.person().MoveTab(ctx, noteID, tabID, pos) })
	return err
}

func (h *heldSession) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	_, err := held(h, func() (struct{}, error) { return struct{}{}, h.person().RenameTab(ctx, noteID, tabID, label) })
	return err
}

func (h *heldSession) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	return held(h, func() (contract.TabInfo, error) { return h.person().AddTab(ctx, noteID, typ, label) })
}

func (h *heldSession) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	_, err := held(h, func() (struct{}, error) {
		return struct{}{}, h.person().SetCells(ctx, noteID, tabID, sheetID, row, col, values)
	})
	return err
}

func (h *heldSession) SetText(ctx context.Context, noteID, text string) error {
	_, err := held(h, func() (struct{}, error) { return struct{}{}, h.person().SetText(ctx, noteID, text) })
	return err
}

// Close closes the inner session. The pool owns it: the server never
// closes the wrapper.
func (h *heldSession) Close() error { return h.inner.Close() }

// agent is a client as its clientInfo names it.
type agent struct{ Name, Version string }

// caller is a client of stateless requests: its clientInfo, and the
// connection they came on.
type caller struct {
	agent
	conn net.Conn
}
