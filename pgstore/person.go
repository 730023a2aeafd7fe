package pgstore

import (
	"context"

	"github.com/notesbench/notesbench/contract"
)

// The person's actions in the app. They are not MCP tools: they take no expected
// version and no idempotency key, since the app saves what the person did, but
// they bump the version like any save, so a stale agent write conflicts with them.

// MoveTab moves a tab to position pos in the bar (0 is first; a position past the
// end means last), shifting the tabs in between.
func (c *Session) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	if pos < 0 {
		return contract.Invalid("position", "must be 0 or more")
	}
	if c.conn == nil {
		return c.fail("moving a tab", errClosed)
	}
	_, err := runWrite(ctx, c, writeSpec[struct{}]{
		noteID: noteID,
		apply: func(w *wtx, t *target, _ contract.Version) (struct{}, error) {
			tabs, err := listTabs(w.ctx, w.conn, noteID)
			if err != nil {
				return struct{}{}, err
			}
			changed, err := contract.MoveTab(tabs, tabID, pos)
			if err != nil {
				return struct{}{}, err
			}
			for _, tab := range changed {
				w.queue(sqlSetPos, tab.Position, noteID, tab.TabID)
			}
			return struct{}{}, nil
		},
	})
	return c.fail("moving a tab", err)
}

// RenameTab sets a tab's label, trimmed (contract.TabLabel).
func (c *Session) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	label, err := contract.TabLabel(label)
	if err != nil {
		return err
	}
	if c.conn == nil {
		return c.fail("renaming a tab", errClosed)
	}
	_, err = runWrite(ctx, c, writeSpec[struct{}]{
		noteID: noteID,
		check: func(w *wtx, _ *target) error {
			var ok bool
			if err := w.conn.QueryRow(w.ctx, sqlTabExists, lookup(noteID), lookup(tabID)).Scan(&ok); err != nil {
				return err
			}
			if !ok {
				return &contract.NotFoundError{Field: "tab_id", ID: tabID}
			}
			return nil
		},
		apply: func(w *wtx, _ *target, _ contract.Version) (struct{}, error) {
			if err := storable("label", label); err != nil {
				return struct{}{}, err
			}
			w.queue(sqlSetLabel, label, noteID, tabID)
			return struct{}{}, nil
		},
	})
	return c.fail("renaming a tab", err)
}

// AddTab adds an empty Slides or Sheet tab at the end of the bar, as the person's
// "+" button does, and returns it.
func (c *Session) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	label, err := contract.AddedTabLabel(typ, label)
	if err != nil {
		return contract.TabInfo{}, err
	}
	if c.conn == nil {
		return contract.TabInfo{}, c.fail("adding a tab", errClosed)
	}
	info, err := runWrite(ctx, c, writeSpec[contract.TabInfo]{
		noteID: noteID,
		apply: func(w *wtx, t *target, _ contract.Version) (contract.TabInfo, error) {
			return c.addTab(w, t, typ, label, contract.EmptyData(typ))
		},
	})
	return info, c.fail("adding a tab", err)
}

// SetCells writes values into a sheet at (row, col), as the person typing in the
// Sheet tab. An empty sheetID means the first sheet.
func (c *Session) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	if err := contract.ValidateRange(row, col, values); err != nil {
		return err
	}
	if c.conn == nil {
		return c.fail("setting cells", errClosed)
	}
	_, err := runWrite(ctx, c, writeSpec[struct{}]{
		noteID:   noteID,
		tabID:    tabID,
		needData: true,
		check: func(_ *wtx, t *target) error {
			return contract.CheckEditable(contract.OpSheetSetRange, t.tabType, t.tabID)
		},
		apply: func(w *wtx, t *target, _ contract.Version) (struct{}, error) {
			_, err := applyEdit(w, contract.EditRequest{NoteID: noteID, TabID: tabID, Operation: contract.OpSheetSetRange,
				SheetID: sheetID, StartRow: row, StartCol: col, Values: values}, t)
			return struct{}{}, err
		},
	})
	return c.fail("setting cells", err)
}

// SetText replaces the text of the markdown tab, as the person typing in it.
func (c *Session) SetText(ctx context.Context, noteID, text string) error {
	if c.conn == nil {
		return c.fail("setting the text", errClosed)
	}
	_, err := runWrite(ctx, c, writeSpec[struct{}]{
		noteID: noteID,
		tabID:  string(contract.TypeMarkdown),
		apply: func(w *wtx, _ *target, _ contract.Version) (struct{}, error) {
			if err := storable("text", text); err != nil {
				return struct{}{}, err
			}
			w.queue(sqlSetData, text, noteID, string(contract.TypeMarkdown))
			return struct{}{}, nil
		},
	})
	return c.fail("setting the text", err)
}
