package history

import (
	"context"
	"errors"

	"github.com/notesbench/notesbench/contract"
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
	// computed from the read that gave that version). An editor that keeps old
	// content and sends a fresher version (the refresh policy) says so here.
	Base contract.Version
}

// Intend sets the intent of the write calls s makes from now on, until the next
// Intend; Intent{} clears it. It does nothing when s is not a recorded session,
// so an experiment can call it whether or not it records. On a session of a
// Log's Client it sets the mark alone: the base is what the server sees.
func Intend(s contract.Session, in Intent) {
	switch rs := s.(type) {
	case *session:
		rs.intent = in
	case *clientSession:
		rs.intent = in.Mark
	}
}

// LoseReply records that the reply to the last call s made never reached the
// client: the call's outcome becomes Info (reply_lost) and what the reply said is
// forgotten. Call it when an experiment drops a reply after the call returned.
// It does nothing when s is not a recorded session.
func LoseReply(s contract.Session) {
	if rs, ok := s.(*session); ok {
		rs.r.loseReply(rs.last)
	}
}

// session is a contract.Session that records every call of its inner Session.
// Like the Sessions it wraps, it is not safe for concurrent use.
type session struct {
	r      *Recorder
	inner  contract.Session
	editor string
	id     int
	intent Intent
	last   int // index of the last recorded call in r.calls, -1 before any
}

var _ contract.Session = (*session)(nil)

// begin starts the record of a call.
func (s *session) begin(tool, noteID string) Call {
	return Call{Run: s.r.header.Run, Editor: s.editor, Session: s.id, Tool: tool, Note: noteID, Invoke: s.r.now()}
}

// intend fills in a write call's intent.
func (s *session) intend(c *Call) {
	c.Intent = s.intent.Mark
	if b := string(s.intent.Base); b != "" && b != c.ExpectedVersion {
		c.BaseVersion = b
	}
}

// end completes the record of a call with its outcome and stores it: the
// outcome and kind are the contract's (contract.OutcomeOf, contract.KindOf);
// a conflict keeps the current version its reply named, if any.
func (s *session) end(c Call, version contract.Version, err error) {
	c.Return = s.r.now()
	setOutcome(&c, version, err)
	s.last = s.r.append(c)
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
	s.end(c, res.Version, err)
	return res, err
}

func (s *session) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	c := s.begin(contract.ToolReadNoteTab, noteID)
	c.Tab = tabID
	res, err := s.inner.ReadNoteTab(ctx, noteID, tabID)
	if err == nil && (res.Type == "" || res.Type == contract.TypeMarkdown) {
		c.Digest = TextDigest(res.Text)
	}
	s.end(c, res.Version, err)
	return res, err
}

func (s *session) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	c := s.begin(contract.ToolReadSheetRange, req.NoteID)
	c.Tab = req.TabID
	res, err := s.inner.ReadSheetRange(ctx, req)
	s.end(c, res.Version, err)
	return res, err
}

func (s *session) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	c := s.begin(contract.ToolListNoteAttachments, req.NoteID)
	res, err := s.inner.ListNoteAttachments(ctx, req)
	s.end(c, "", err)
	return res, err
}

func (s *session) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	c := s.begin(contract.ToolEditNoteTab, req.NoteID)
	c.Tab, c.Operation = req.TabID, string(req.Operation)
	c.ExpectedVersion, c.Key = string(req.ExpectedVersion), req.IdempotencyKey
	if req.Operation == contract.OpSheetSetRange {
		c.At = &Cell{SheetID: req.SheetID, Row: req.StartRow, Col: req.StartCol}
	}
	if req.Operation == contract.OpReplaceText {
		c.Digest = TextDigest(req.Text)
	}
	s.intend(&c)
	res, err := s.inner.EditNoteTab(ctx, req)
	c.Replayed = res.Replayed
	s.end(c, res.Version, err)
	return res, err
}

func (s *session) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	c := s.begin(contract.ToolCreateNoteTab, req.NoteID)
	c.ExpectedVersion, c.Key = string(req.ExpectedVersion), req.IdempotencyKey
	c.TabType, c.Label = string(req.TabType), req.LabelOrDefault()
	s.intend(&c)
	res, err := s.inner.CreateNoteTab(ctx, req)
	c.Replayed, c.TabID = res.Replayed, res.TabID
	s.end(c, res.Version, err)
	return res, err
}

func (s *session) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	c := s.begin(contract.ToolAddNoteSource, req.NoteID)
	c.ExpectedVersion, c.Key, c.URL = string(req.ExpectedVersion), req.IdempotencyKey, req.URL
	s.intend(&c)
	res, err := s.inner.AddNoteSource(ctx, req)
	c.Replayed, c.SourceID = res.Replayed, res.SourceID
	s.end(c, res.Version, err)
	return res, err
}

// Close closes the inner Session; it records nothing.
func (s *session) Close() error { return s.inner.Close() }
