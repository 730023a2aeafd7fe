package store

import (
	"context"

	"github.com/notesbench/notesbench/contract"
)

// EditNoteTab is the edit_note_tab tool: it changes the content of one markdown,
// slides or sheet tab, if the expected version is still current, once per
// idempotency key.
func (c *Conn) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if err := req.Validate(); err != nil {
		return contract.EditResult{}, err
	}
	return runWrite(ctx, c, writeSpec[contract.EditResult]{
		tool:     contract.ToolEditNoteTab,
		noteID:   req.NoteID,
		tabID:    req.TabID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		request:  req,
		check:    func(t *target) error { return contract.CheckEditable(req.Operation, t.tabType, t.tabID) },
		apply: func(t *target, next contract.Version) (contract.EditResult, error) {
			changed, err := c.applyEdit(ctx, req, t)
			return contract.EditResult{NoteID: req.NoteID, TabID: req.TabID, Version: next, Changed: changed}, err
		},
	})
}

// applyEdit writes the operation's change and says what changed. The old
// content is read only for an edit that changes part of it.
func (c *Conn) applyEdit(ctx context.Context, req contract.EditRequest, t *target) (string, error) {
	var stored string
	if req.ReadsStored() {
		var err error
		if stored, err = c.tabData(ctx, t.noteID, t.tabID); err != nil {
			return "", err
		}
	}
	data, changed, err := contract.ApplyEdit(t.tabType, stored, req)
	if err != nil {
		return "", err
	}
	return changed, c.setTabData(ctx, req.NoteID, req.TabID, data)
}
