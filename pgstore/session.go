package pgstore

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/notesbench/notesbench/contract"
)

// Session is one client's connection: the seven tools and the person's
// actions. It holds one connection of the run's pool until Close. A Session is
// not safe for concurrent use: give each goroutine its own.
type Session struct {
	s    *Store
	pc   *pgxpool.Conn
	conn *pgx.Conn
	// pace paces the retries of the session's writes; retries counts them.
	pace    *backoff
	retries atomic.Int64
}

// Retries is how many times the session's writes have run their transaction
// again so far, after a serialization failure, a deadlock or a second first
// use of one key: under the Serializable isolation mode, what racing costs.
// It may be called from any goroutine.
func (c *Session) Retries() int64 { return c.retries.Load() }

// Close returns the connection to the pool. It may be called more than once.
func (c *Session) Close() error {
	if c.pc != nil {
		c.pc.Release()
		c.pc, c.conn = nil, nil
	}
	return nil
}

// errClosed is what a closed Session's tools return.
var errClosed = errors.New("session is closed")

// fail passes a contract outcome through and wraps any other error as an
// *Error naming the server and the tool.
func (c *Session) fail(op string, err error) error {
	if err == nil || contract.IsOutcome(err) {
		return err
	}
	return c.s.t.fail(op, err)
}

// EditNoteTab is the edit_note_tab tool: it changes the content of one markdown,
// slides or sheet tab, if the expected version is still current, once per
// idempotency key.
func (c *Session) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if err := req.Validate(); err != nil {
		return contract.EditResult{}, err
	}
	if c.conn == nil {
		return contract.EditResult{}, c.fail(contract.ToolEditNoteTab, errClosed)
	}
	res, err := runWrite(ctx, c, writeSpec[contract.EditResult]{
		tool:     contract.ToolEditNoteTab,
		noteID:   req.NoteID,
		tabID:    req.TabID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		request:  req,
		needData: req.ReadsStored(),
		check:    func(_ *wtx, t *target) error { return contract.CheckEditable(req.Operation, t.tabType, t.tabID) },
		apply: func(w *wtx, t *target, next contract.Version) (contract.EditResult, error) {
			changed, err := applyEdit(w, req, t)
			return contract.EditResult{NoteID: req.NoteID, TabID: req.TabID, Version: next, Changed: changed}, err
		},
	})
	return res, c.fail(contract.ToolEditNoteTab, err)
}

// applyEdit queues the operation's change and says what changed.
func applyEdit(w *wtx, req contract.EditRequest, t *target) (string, error) {
	data, changed, err := contract.ApplyEdit(t.tabType, t.data, req)
	if err != nil {
		return "", err
	}
	if err := storable("text", data); err != nil {
		return "", err
	}
	w.queue(sqlSetData, data, req.NoteID, req.TabID)
	return changed, nil
}

// CreateNoteTab is the create_note_tab tool: it adds a Slides or Sheet tab at the
// end of the bar, optionally filled with an outline, and returns its exact ID
// (contract.TabID).
func (c *Session) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	if err := req.Validate(); err != nil {
		return contract.CreateResult{}, err
	}
	if c.conn == nil {
		return contract.CreateResult{}, c.fail(contract.ToolCreateNoteTab, errClosed)
	}
	res, err := runWrite(ctx, c, writeSpec[contract.CreateResult]{
		tool:     contract.ToolCreateNoteTab,
		noteID:   req.NoteID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		request:  req,
		apply: func(w *wtx, t *target, next contract.Version) (contract.CreateResult, error) {
			info, err := c.addTab(w, t, req.TabType, req.LabelOrDefault(), req.InitialData())
			return contract.CreateResult{NoteID: req.NoteID, TabID: info.TabID, Type: info.Type, Label: info.Label,
				Position: info.Position, Version: next}, err
		},
	})
	return res, c.fail(contract.ToolCreateNoteTab, err)
}

// addTab queues a tab at the end of the bar with the next ID of the Note's
// counter. The caller bumps the version.
func (c *Session) addTab(w *wtx, t *target, typ contract.TabType, label, data string) (contract.TabInfo, error) {
	if err := storable("label", label); err != nil {
		return contract.TabInfo{}, err
	}
	info := contract.TabInfo{
		TabID:    contract.TabID(typ, t.nextTab, t.now),
		Type:     typ,
		Label:    label,
		Position: int(t.tabs),
	}
	w.queue(sqlNextTab, t.noteID)
	w.queue(sqlInsertTab, t.noteID, info.TabID, string(typ), label, info.Position, data, c.s.versions.First(t.now))
	return info, nil
}

// AddNoteSource is the add_note_source tool: it adds an http or https citation to
// the Sources tab and returns the new source ID.
func (c *Session) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	if err := req.Validate(); err != nil {
		return contract.SourceResult{}, err
	}
	if c.conn == nil {
		return contract.SourceResult{}, c.fail(contract.ToolAddNoteSource, errClosed)
	}
	res, err := runWrite(ctx, c, writeSpec[contract.SourceResult]{
		tool:     contract.ToolAddNoteSource,
		noteID:   req.NoteID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		request:  req,
		apply: func(w *wtx, t *target, next contract.Version) (contract.SourceResult, error) {
			id, err := addAttachment(w, t, "sources", strings.TrimSpace(req.Title), req.URL)
			return contract.SourceResult{NoteID: req.NoteID, SourceID: id, Version: next}, err
		},
	})
	return res, c.fail(contract.ToolAddNoteSource, err)
}

func addAttachment(w *wtx, t *target, kind, title, link string) (string, error) {
	if err := storable("title", title); err != nil {
		return "", err
	}
	if err := storable("url", link); err != nil {
		return "", err
	}
	id := contract.AttachmentID(kind, t.nextItem)
	w.queue(sqlNextItem, t.noteID)
	w.queue(sqlInsertAtt, t.noteID, kind, t.nextItem, id, title, link, contract.CreatedAt(t.now))
	return id, nil
}
