package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// session is one MCP client session: a contract.Session over the wire. It is
// safe for concurrent use.
type session struct {
	b *backend
	c *conn
}

// Pinger is what a Session over MCP adds for the transport's floor: an MCP
// ping, a round trip that touches no tool.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Caller is the JSON layer over the wire, with contract.Call's meaning: the
// result object of any contract outcome, an error only for a protocol or
// transport fault (a *ProtocolError when the server answered with a JSON-RPC
// error). Its arguments reach the server as they are, unvalidated.
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
}

// ProtocolError is a JSON-RPC error the server answered a call with.
type ProtocolError struct {
	Target, Tool string
	Code         int64
	Message      string
}

// JSONRPCCode returns the error's code: what marks a refusal by the server
// as a JSON-RPC error, to a caller that does not import this package.
func (e *ProtocolError) JSONRPCCode() int64 { return e.Code }

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("target %s: %s: JSON-RPC error %d: %s", e.Target, e.Tool, e.Code, e.Message)
}

// Ping sends an MCP ping.
func (s *session) Ping(ctx context.Context) error {
	if err := s.c.cs.Ping(ctx, nil); err != nil {
		return s.c.fail("ping", err)
	}
	return nil
}

// Call makes a raw call (see Caller).
func (s *session) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	body, _, err := s.b.exchange(ctx, s.c, tool, args)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, &ProtocolError{Target: s.b.t.name, Tool: tool, Code: je.Code, Message: je.Message}
		}
		return nil, err
	}
	return body, nil
}

// callAs makes the typed call of tool on s and returns its result as a T.
func callAs[T any](ctx context.Context, s *session, tool string, req any) (T, error) {
	var out T
	err := s.call(ctx, tool, req, &out)
	return out, err
}

// call makes a typed call: the request as JSON arguments, sent as a raw call
// is (the run's Note IDs mapped on the way out and back), the result object
// decoded into out, and a contract outcome turned back into its typed error.
func (s *session) call(ctx context.Context, tool string, req, out any) error {
	args, err := json.Marshal(req)
	if err != nil {
		return err
	}
	body, isErr, err := s.b.exchange(ctx, s.c, tool, args)
	if err != nil {
		return err
	}
	if cerr := contract.ErrorOf(body); cerr != nil {
		return cerr
	}
	if isErr {
		return fmt.Errorf("target %s: %s: error result %s", s.b.t.name, tool, body)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("target %s: %s: result %s: %w", s.b.t.name, tool, body, err)
	}
	return nil
}

func (s *session) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	return callAs[contract.TabList](ctx, s, contract.ToolListNoteTabs, map[string]string{"note_id": noteID})
}

func (s *session) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	return callAs[contract.TabContent](ctx, s, contract.ToolReadNoteTab, map[string]string{"note_id": noteID, "tab_id": tabID})
}

func (s *session) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return callAs[contract.SheetRange](ctx, s, contract.ToolReadSheetRange, req)
}

func (s *session) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	return callAs[contract.AttachmentPage](ctx, s, contract.ToolListNoteAttachments, req)
}

func (s *session) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	return callAs[contract.EditResult](ctx, s, contract.ToolEditNoteTab, req)
}

func (s *session) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	return callAs[contract.CreateResult](ctx, s, contract.ToolCreateNoteTab, req)
}

func (s *session) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	return callAs[contract.SourceResult](ctx, s, contract.ToolAddNoteSource, req)
}

// Close ends the MCP session; over stdio, its server process.
func (s *session) Close() error {
	s.b.mu.Lock()
	open := s.b.sessions[s]
	delete(s.b.sessions, s)
	s.b.mu.Unlock()
	if !open || s.c == s.b.t.control {
		return nil
	}
	return s.c.close()
}

// personSession is a session on a server that offers the person's actions
// as extension tools.
type personSession struct{ *session }

func (p *personSession) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	return p.call(ctx, ext.ToolMoveTab, ext.MoveTabRequest{NoteID: noteID, TabID: tabID, Position: pos}, nil)
}

func (p *personSession) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	return p.call(ctx, ext.ToolRenameTab, ext.RenameTabRequest{NoteID: noteID, TabID: tabID, Label: label}, nil)
}

func (p *personSession) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	var out contract.TabInfo
	err := p.call(ctx, ext.ToolAddTab, ext.AddTabRequest{NoteID: noteID, TabType: typ, Label: label}, &out)
	return out, err
}

func (p *personSession) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	return p.call(ctx, ext.ToolSetCells, ext.SetCellsRequest{NoteID: noteID, TabID: tabID, SheetID: sheetID,
		StartRow: row, StartCol: col, Values: values}, nil)
}

func (p *personSession) SetText(ctx context.Context, noteID, text string) error {
	return p.call(ctx, ext.ToolSetText, ext.SetTextRequest{NoteID: noteID, Text: text}, nil)
}

// The session types are what they say.
var (
	_ contract.Session = (*session)(nil)
	_ contract.Person  = (*personSession)(nil)
	_ Pinger           = (*session)(nil)
	_ Caller           = (*session)(nil)
)
