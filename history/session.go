package history

import (
	"context"
	"errors"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// Intent is what an editor means its write calls to do, for a checker to hold
// the final state against.
type Intent struct {
	// Mark is what the calls mean to add, unique in the run: a line of the text
	// ("claude-17"), the value of the one cell a sheet_set_range sets, the
	// identity of the tab or source a create or add_note_source makes (its
	// label, its normalized URL). Calls with the same Mark are tries of one
	// intent.
	Mark string
	// Base is the version of the read the calls' content was computed from.
	// Empty means the expected_version each call sends (the content was
	// computed from the read that gave that version), or, for a served
	// client, the view the server sees it came from (Client). An editor that
	// keeps old content and sends a fresher version (the refresh policy) says
	// so here. Set, it stands for a served client's view too.
	Base contract.Version
}

// Intend sets the intent of the write calls s makes from now on, until the next
// Intend; Intent{} clears it. It does nothing when s is not a recorded session,
// so an experiment can call it whether or not it records.
func Intend(s contract.Session, in Intent) {
	if rs, ok := s.(*session); ok {
		rs.intent = in
	}
}

// LoseReply records that the reply to the last call s made never reached the
// client: the call's outcome becomes Info (reply_lost) and what the reply said is
// forgotten. Call it when an experiment drops a reply after the call returned.
// It does nothing when s is not a recorded session, or when its Recorder's
// Sink is a Log, which wrote the call as it returned.
func LoseReply(s contract.Session) {
	if rs, ok := s.(*session); ok {
		rs.c.r.loseReply(rs.last)
	}
}

// Client is who the calls of a recorded session are recorded as: an editor
// of a run (Recorder.Session), or one client of a server (Recorder.Client:
// an MCP session, or the scripted person), whose calls also record what a
// server can tell of what each write meant from what the client saw (see
// views). A Client is safe for concurrent use; so is every Session it makes
// for a server's client.
type Client struct {
	r         *Recorder
	editor    string
	version   string
	id        int
	stateless bool
	// views are what a server's client saw; nil for an editor of a run,
	// whose calls record the digests of the texts instead (Call.Digest).
	views *views
}

// Session wraps inner, so that every call made through it is recorded as a
// call of the client. The wrapper offers the person's actions
// (contract.Person) too, recorded as calls of the extension tools that name
// them; they fail when inner does not offer them. Close closes inner.
func (c *Client) Session(inner contract.Session) contract.Session {
	return &session{c: c, inner: inner, last: -1}
}

// session is a contract.Session (and contract.Person) that records every
// call of its inner Session.
type session struct {
	c      *Client
	inner  contract.Session
	intent Intent // set by Intend
	last   int    // the index of the last recorded call in its sink, -1 before any
}

var (
	_ contract.Session = (*session)(nil)
	_ contract.Person  = (*session)(nil)
)

// begin starts the record of a call.
func (s *session) begin(tool, noteID string) Call {
	c := s.c
	return Call{Run: c.r.header.Run, Editor: c.editor, ClientVersion: c.version, Session: c.id, Stateless: c.stateless,
		Tool: tool, Note: noteID, Invoke: c.r.Now()}
}

// beginText starts the record of a write of a markdown tab's whole text: for
// a server's client, with what it does to the client's views (views.begin).
func (s *session) beginText(tool, noteID, tabID, text string, expected contract.Version) Call {
	if s.c.views == nil {
		c := s.begin(tool, noteID)
		c.Tab = tabID
		return c
	}
	return s.c.views.begin(func() Call { return s.begin(tool, noteID) }, tabID, text, expected)
}

// intend fills in a write call's intent.
func (s *session) intend(c *Call) {
	c.Intent = s.intent.Mark
	if b := string(s.intent.Base); b != "" && b != c.ExpectedVersion {
		c.BaseVersion = b
	}
}

// digest sets the digest of a text the call read or wrote whole, for an
// editor of a run.
func (s *session) digest(c *Call, text string) {
	if s.c.views == nil {
		c.Digest = TextDigest(text)
	}
}

// end completes the record of a call with its outcome and hands it to the
// recorder; seen, when set, is a view the call gave a server's client (a
// read's text, a committed write's).
func (s *session) end(c Call, version contract.Version, err error, seen *view) {
	if v := s.c.views; v != nil {
		v.mu.Lock()
		c.Return = s.c.r.Now()
		setOutcome(&c, version, err)
		v.saw(c, version, err, seen)
		v.mu.Unlock()
	} else {
		c.Return = s.c.r.Now()
		setOutcome(&c, version, err)
	}
	s.last = s.c.r.append(c)
}

// setOutcome fills in a call's outcome from what the call returned: the
// outcome and kind are the contract's (contract.OutcomeOf, contract.KindOf);
// a conflict keeps the current version its reply named, if any; a call that
// failed keeps no result.
func setOutcome(c *Call, version contract.Version, err error) {
	c.Outcome, c.ErrorKind = contract.OutcomeOf(err), contract.KindOf(err)
	var conflict *contract.ConflictError
	switch {
	case err == nil:
		c.Version = string(version)
	case errors.As(err, &conflict):
		c.Version = string(conflict.Current)
	default:
		c.Error = err.Error()
	}
	if err != nil {
		c.Replayed, c.TabID, c.SourceID = false, "", ""
	}
}

func (s *session) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	c := s.begin(contract.ToolListNoteTabs, noteID)
	res, err := s.inner.ListNoteTabs(ctx, noteID)
	if err == nil && s.c.views != nil {
		c.Listed = make([]FinalTab, len(res.Tabs))
		for i, t := range res.Tabs {
			c.Listed[i] = FinalTab{TabID: t.TabID, Type: t.Type, Label: t.Label}
		}
	}
	s.end(c, res.Version, err, nil)
	return res, err
}

func (s *session) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	c := s.begin(contract.ToolReadNoteTab, noteID)
	c.Tab = tabID
	res, err := s.inner.ReadNoteTab(ctx, noteID, tabID)
	var seen *view
	if err == nil && (res.Type == "" || res.Type == contract.TypeMarkdown) {
		s.digest(&c, res.Text)
	}
	if err == nil && res.Type == contract.TypeMarkdown && s.c.views != nil {
		seen = newView(res.Text)
	}
	s.end(c, res.Version, err, seen)
	return res, err
}

func (s *session) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	c := s.begin(contract.ToolReadSheetRange, req.NoteID)
	c.Tab = req.TabID
	res, err := s.inner.ReadSheetRange(ctx, req)
	s.end(c, res.Version, err, nil)
	return res, err
}

func (s *session) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	c := s.begin(contract.ToolListNoteAttachments, req.NoteID)
	res, err := s.inner.ListNoteAttachments(ctx, req)
	s.end(c, "", err, nil)
	return res, err
}

func (s *session) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	text := req.Operation == contract.OpReplaceText
	var c Call
	if text {
		c = s.beginText(contract.ToolEditNoteTab, req.NoteID, req.TabID, req.Text, req.ExpectedVersion)
		s.digest(&c, req.Text)
	} else {
		c = s.begin(contract.ToolEditNoteTab, req.NoteID)
		c.Tab = req.TabID
	}
	c.Operation = string(req.Operation)
	c.ExpectedVersion, c.Key = string(req.ExpectedVersion), req.IdempotencyKey
	if req.Operation == contract.OpSheetSetRange {
		c.At = &Cell{SheetID: req.SheetID, Row: req.StartRow, Col: req.StartCol}
	}
	s.intend(&c)
	res, err := s.inner.EditNoteTab(ctx, req)
	c.Replayed = res.Replayed
	var seen *view
	if text && !res.Replayed && s.c.views != nil { // the text at the version replayed is the first call's
		seen = newView(req.Text)
	}
	s.end(c, res.Version, err, seen)
	return res, err
}

func (s *session) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	c := s.begin(contract.ToolCreateNoteTab, req.NoteID)
	c.ExpectedVersion, c.Key = string(req.ExpectedVersion), req.IdempotencyKey
	c.TabType, c.Label = string(req.TabType), req.LabelOrDefault()
	s.intend(&c)
	res, err := s.inner.CreateNoteTab(ctx, req)
	c.Replayed, c.TabID = res.Replayed, res.TabID
	s.end(c, res.Version, err, nil)
	return res, err
}

func (s *session) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	c := s.begin(contract.ToolAddNoteSource, req.NoteID)
	c.ExpectedVersion, c.Key, c.URL = string(req.ExpectedVersion), req.IdempotencyKey, req.URL
	s.intend(&c)
	res, err := s.inner.AddNoteSource(ctx, req)
	c.Replayed, c.SourceID = res.Replayed, res.SourceID
	s.end(c, res.Version, err, nil)
	return res, err
}

// errNoPerson is a person's action on a session that offers none.
var errNoPerson = errors.New("history: the session offers no person's actions")

// person returns inner's person's actions, or nil.
func (s *session) person() contract.Person {
	p, _ := s.inner.(contract.Person)
	return p
}

func (s *session) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.begin(ext.ToolMoveTab, noteID)
	c.Tab, c.Position = tabID, &pos
	err := p.MoveTab(ctx, noteID, tabID, pos)
	s.end(c, "", err, nil)
	return err
}

func (s *session) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.begin(ext.ToolRenameTab, noteID)
	c.Tab, c.Label = tabID, label
	err := p.RenameTab(ctx, noteID, tabID, label)
	s.end(c, "", err, nil)
	return err
}

func (s *session) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	p := s.person()
	if p == nil {
		return contract.TabInfo{}, errNoPerson
	}
	c := s.begin(ext.ToolAddTab, noteID)
	c.TabType, c.Label = string(typ), label
	res, err := p.AddTab(ctx, noteID, typ, label)
	if err == nil {
		c.TabID, c.Label = res.TabID, res.Label
	}
	s.end(c, "", err, nil)
	return res, err
}

func (s *session) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.begin(ext.ToolSetCells, noteID)
	c.Tab, c.At = tabID, &Cell{SheetID: sheetID, Row: row, Col: col}
	err := p.SetCells(ctx, noteID, tabID, sheetID, row, col, values)
	s.end(c, "", err, nil)
	return err
}

func (s *session) SetText(ctx context.Context, noteID, text string) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.beginText(ext.ToolSetText, noteID, string(contract.TypeMarkdown), text, "")
	err := p.SetText(ctx, noteID, text)
	s.end(c, "", err, nil)
	return err
}

// Close closes the inner Session; it records nothing.
func (s *session) Close() error { return s.inner.Close() }
