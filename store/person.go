package store

import (
	"context"

	"github.com/notesbench/notesbench/contract"
)

// The person's actions in the app. They are not MCP tools: they take no expected
// version and no idempotency key, since the app saves what the person did, but
// they bump the version like any save, so a stale agent write conflicts with them.

// MoveTab moves a tab to position pos in the bar (0 is first; a position past the
// end means last), shifting the tabs in between.
func (c *Conn) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	if pos < 0 {
		return contract.Invalid("position", "must be 0 or more")
	}
	_, err := runWrite(ctx, c, writeSpec[struct{}]{
		noteID: noteID,
		apply: func(t *target, _ contract.Version) (struct{}, error) {
			tabs, err := c.tabs(ctx, noteID)
			if err != nil {
				return struct{}{}, err
			}
			changed, err := contract.MoveTab(tabs, tabID, pos)
			if err != nil {
				return struct{}{}, err
			}
			for _, tab := range changed {
				if err := c.exec(ctx, `UPDATE tabs SET position = ? WHERE note_id = ? AND tab_id = ?`, tab.Position, noteID, tab.TabID); err != nil {
					return struct{}{}, err
				}
			}
			return struct{}{}, nil
		},
	})
	return err
}

// RenameTab sets a tab's label, trimmed (contract.TabLabel).
func (c *Conn) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	label, err := contract.TabLabel(label)
	if err != nil {
		return err
	}
	_, err = runWrite(ctx, c, writeSpec[struct{}]{
		noteID: noteID,
		check: func(*target) error {
			_, err := c.loadTarget(ctx, noteID, tabID)
			return err
		},
		apply: func(*target, contract.Version) (struct{}, error) {
			err := c.exec(ctx, `UPDATE tabs SET label = ? WHERE note_id = ? AND tab_id = ?`, label, noteID, tabID)
			return struct{}{}, err
		},
	})
	return err
}

// AddTab adds an empty Slides or Sheet tab at the end of the bar, as the person's
// "+" button does, and returns it.
func (c *Conn) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	label, err := contract.AddedTabLabel(typ, label)
	if err != nil {
		return contract.TabInfo{}, err
	}
	return runWrite(ctx, c, writeSpec[contract.TabInfo]{
		noteID: noteID,
		apply: func(t *target, _ contract.Version) (contract.TabInfo, error) {
			return c.addTab(ctx, t, typ, label, contract.EmptyData(typ))
		},
	})
}

// SetCells writes values into a sheet at (row, col), as the person typing in the
// Sheet tab. An empty sheetID means the first sheet.
func (c *Conn) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	if err := contract.ValidateRange(row, col, values); err != nil {
		return err
	}
	_, err := runWrite(ctx, c, writeSpec[struct{}]{
		noteID: noteID,
		tabID:  tabID,
		check:  func(t *target) error { return contract.CheckEditable(contract.OpSheetSetRange, t.tabType, t.tabID) },
		apply: func(t *target, _ contract.Version) (struct{}, error) {
			_, err := c.applyEdit(ctx, contract.EditRequest{NoteID: noteID, TabID: tabID, Operation: contract.OpSheetSetRange,
				SheetID: sheetID, StartRow: row, StartCol: col, Values: values}, t)
			return struct{}{}, err
		},
	})
	return err
}

// SetText replaces the text of the markdown tab, as the person typing in it.
func (c *Conn) SetText(ctx context.Context, noteID, text string) error {
	_, err := runWrite(ctx, c, writeSpec[struct{}]{
		noteID: noteID,
		tabID:  string(contract.TypeMarkdown),
		apply: func(*target, contract.Version) (struct{}, error) {
			return struct{}{}, c.setTabData(ctx, noteID, string(contract.TypeMarkdown), text)
		},
	})
	return err
}
