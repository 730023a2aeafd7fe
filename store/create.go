package store

import (
	"context"
	"strings"

	"github.com/notesbench/notesbench/contract"
)

// CreateNoteTab is the create_note_tab tool: it adds a Slides or Sheet tab at the
// end of the bar, optionally filled with an outline, and returns its exact ID
// (contract.TabID).
func (c *Conn) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	if err := req.Validate(); err != nil {
		return contract.CreateResult{}, err
	}
	return runWrite(ctx, c, writeSpec[contract.CreateResult]{
		tool:     contract.ToolCreateNoteTab,
		noteID:   req.NoteID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		request:  req,
		apply: func(t *target, next contract.Version) (contract.CreateResult, error) {
			info, err := c.addTab(ctx, t, req.TabType, req.LabelOrDefault(), req.InitialData())
			return contract.CreateResult{NoteID: req.NoteID, TabID: info.TabID, Type: info.Type, Label: info.Label,
				Position: info.Position, Version: next}, err
		},
	})
}

// addTab inserts a tab at the end of the bar with the next ID of the Note's
// counter. The caller bumps the version.
func (c *Conn) addTab(ctx context.Context, t *target, typ contract.TabType, label, data string) (contract.TabInfo, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT count(*) FROM tabs WHERE note_id = ?`, t.noteID).Scan(&n); err != nil {
		return contract.TabInfo{}, err
	}
	info := contract.TabInfo{
		TabID:    contract.TabID(typ, t.nextTab, c.s.opts.Clock.Now()),
		Type:     typ,
		Label:    label,
		Position: n,
	}
	if err := c.exec(ctx, `UPDATE notes SET next_tab = next_tab + 1 WHERE id = ?`, t.noteID); err != nil {
		return contract.TabInfo{}, err
	}
	err := c.exec(ctx, `INSERT INTO tabs (note_id, tab_id, type, label, position, data, version) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		t.noteID, info.TabID, string(typ), label, n, data, c.s.firstVersion())
	return info, err
}

// AddNoteSource is the add_note_source tool: it adds an http or https citation to
// the Sources tab and returns the new source ID.
func (c *Conn) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	if err := req.Validate(); err != nil {
		return contract.SourceResult{}, err
	}
	return runWrite(ctx, c, writeSpec[contract.SourceResult]{
		tool:     contract.ToolAddNoteSource,
		noteID:   req.NoteID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		request:  req,
		apply: func(t *target, next contract.Version) (contract.SourceResult, error) {
			id, err := c.addAttachment(ctx, t, "sources", strings.TrimSpace(req.Title), req.URL)
			return contract.SourceResult{NoteID: req.NoteID, SourceID: id, Version: next}, err
		},
	})
}

func (c *Conn) addAttachment(ctx context.Context, t *target, kind, title, link string) (string, error) {
	id := contract.AttachmentID(kind, t.nextItem)
	created := contract.CreatedAt(c.s.opts.Clock.Now())
	if err := c.exec(ctx, `UPDATE notes SET next_item = next_item + 1 WHERE id = ?`, t.noteID); err != nil {
		return "", err
	}
	err := c.exec(ctx, `INSERT INTO attachments (note_id, kind, seq, id, title, url, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		t.noteID, kind, t.nextItem, id, title, link, created)
	return id, err
}
