package store

import (
	"context"
	"errors"

	"github.com/notesbench/notesbench/contract"
)

// ListNoteTabs is the list_note_tabs tool: the Note version and every tab
// instance in bar order.
func (c *Conn) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	l := contract.TabList{NoteID: noteID}
	err := c.inReadTx(ctx, func() error {
		t, err := c.loadTarget(ctx, noteID, "")
		if err != nil {
			return err
		}
		l.Version = toVersion(t.noteVersion)
		l.Tabs, err = c.tabs(ctx, noteID)
		return err
	})
	return l, err
}

func (c *Conn) tabs(ctx context.Context, noteID string) ([]contract.TabInfo, error) {
	rows, err := c.query(ctx, `SELECT tab_id, type, label, position FROM tabs WHERE note_id = ? ORDER BY position`, noteID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tabs []contract.TabInfo
	for rows.Next() {
		var t contract.TabInfo
		if err := rows.Scan(&t.TabID, &t.Type, &t.Label, &t.Position); err != nil {
			return nil, err
		}
		tabs = append(tabs, t)
	}
	return tabs, rows.Err()
}

// ReadNoteTab is the read_note_tab tool: one tab's content and the version to
// send back with a write (the Note's, or the tab's under GuardTab).
func (c *Conn) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	if tabID == "" {
		return contract.TabContent{}, contract.Invalid("tab_id", "required")
	}
	out := contract.TabContent{NoteID: noteID, TabID: tabID}
	err := c.inReadTx(ctx, func() error {
		st, err := c.hotStmt(ctx, hotReadTab)
		if err != nil {
			return err
		}
		st.text(1, noteID)
		st.text(2, tabID)
		var noteVersion, tabVersion any
		var data string
		err = (&row{rows: rows{st: st}}).Scan(&noteVersion, &tabVersion, &out.Type, &out.Label, &data)
		if errors.Is(err, errNoRows) {
			_, err = c.loadTarget(ctx, noteID, tabID) // says which of the two is missing
			return err
		}
		if err != nil {
			return err
		}
		out.Version = toVersion(c.s.opts.variant().GuardedVersion(tabID, noteVersion, tabVersion))
		return c.decodeContent(ctx, &out, data)
	})
	if err != nil {
		return contract.TabContent{}, err
	}
	return out, nil
}

func (c *Conn) decodeContent(ctx context.Context, out *contract.TabContent, data string) error {
	if out.Type == contract.TypeFiles || out.Type == contract.TypeSources {
		items, _, err := c.attachments(ctx, out.NoteID, string(out.Type), 0, -1)
		out.Items = items
		return err
	}
	return contract.DecodeContent(out, data)
}

// ReadSheetRange is the read_sheet_range tool: at most 100 × 100 cells of one
// sheet, null where a cell is empty.
func (c *Conn) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return contract.ReadRange(ctx, c, req)
}

// ListNoteAttachments is the list_note_attachments tool: one page of file or
// source metadata, never content or signed links.
func (c *Conn) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	p, err := req.Page()
	if err != nil {
		return contract.AttachmentPage{}, err
	}
	page := contract.AttachmentPage{NoteID: req.NoteID, Kind: p.Kind}
	err = c.inReadTx(ctx, func() error {
		if _, err := c.loadTarget(ctx, req.NoteID, ""); err != nil {
			return err
		}
		items, seqs, err := c.attachments(ctx, req.NoteID, p.Kind, p.After, p.Limit+1)
		if err != nil {
			return err
		}
		page.Items, page.NextCursor = p.Cut(items, seqs)
		return nil
	})
	if err != nil {
		return contract.AttachmentPage{}, err
	}
	return page, nil
}

// attachments returns up to limit items (all when limit < 0) after sequence
// number after, with their sequence numbers.
func (c *Conn) attachments(ctx context.Context, noteID, kind string, after int64, limit int) ([]contract.Attachment, []int64, error) {
	rows, err := c.query(ctx, `SELECT seq, id, title, url, created_at FROM attachments WHERE note_id = ? AND kind = ? AND seq > ? ORDER BY seq LIMIT ?`,
		noteID, kind, after, limit)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var items []contract.Attachment
	var seqs []int64
	for rows.Next() {
		var a contract.Attachment
		var seq int64
		if err := rows.Scan(&seq, &a.ID, &a.Title, &a.URL, &a.CreatedAt); err != nil {
			return nil, nil, err
		}
		items = append(items, a)
		seqs = append(seqs, seq)
	}
	return items, seqs, rows.Err()
}
