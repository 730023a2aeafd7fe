package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/contract"
)

// ListNoteTabs is the list_note_tabs tool: the Note version and every tab
// instance in bar order.
func (c *Session) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	l, err := c.listNoteTabs(ctx, noteID)
	return l, c.fail(contract.ToolListNoteTabs, err)
}

func (c *Session) listNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	l := contract.TabList{NoteID: noteID}
	if noteID == "" {
		return l, contract.Invalid("note_id", "required")
	}
	if c.conn == nil {
		return l, errClosed
	}
	rows, err := c.conn.Query(ctx, sqlListTabs, lookup(noteID))
	if err != nil {
		return l, err
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		found = true
		var v any
		var id, typ, label *string
		var pos *int32
		if err := rows.Scan(&v, &id, &typ, &label, &pos); err != nil {
			return l, err
		}
		l.Version = toVersion(v)
		if id != nil {
			l.Tabs = append(l.Tabs, contract.TabInfo{TabID: *id, Type: contract.TabType(*typ), Label: *label, Position: int(*pos)})
		}
	}
	if err := rows.Err(); err != nil {
		return l, err
	}
	if !found {
		return contract.TabList{NoteID: noteID}, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	return l, nil
}

// listTabs reads a Note's tabs in bar order.
func listTabs(ctx context.Context, conn *pgx.Conn, noteID string) ([]contract.TabInfo, error) {
	rows, err := conn.Query(ctx, sqlListTabsOnly, lookup(noteID))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tabs []contract.TabInfo
	for rows.Next() {
		var t contract.TabInfo
		var typ string
		var pos int32
		if err := rows.Scan(&t.TabID, &typ, &t.Label, &pos); err != nil {
			return nil, err
		}
		t.Type, t.Position = contract.TabType(typ), int(pos)
		tabs = append(tabs, t)
	}
	return tabs, rows.Err()
}

// ReadNoteTab is the read_note_tab tool: one tab's content and the version to
// send back with a write (the Note's, or the tab's under GuardTab).
func (c *Session) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	out, err := c.readNoteTab(ctx, noteID, tabID)
	if err != nil {
		return contract.TabContent{}, c.fail(contract.ToolReadNoteTab, err)
	}
	return out, nil
}

func (c *Session) readNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	if tabID == "" {
		return contract.TabContent{}, contract.Invalid("tab_id", "required")
	}
	if c.conn == nil {
		return contract.TabContent{}, errClosed
	}
	out := contract.TabContent{NoteID: noteID, TabID: tabID}
	rows, err := c.conn.Query(ctx, sqlReadTab, lookup(noteID), lookup(tabID))
	if err != nil {
		return out, err
	}
	defer rows.Close()
	found := false
	var data string
	for rows.Next() {
		var noteVersion, tabVersion any
		var typ string
		var id, title, url, created *string
		if err := rows.Scan(&noteVersion, &tabVersion, &typ, &out.Label, &data, &id, &title, &url, &created); err != nil {
			return out, err
		}
		if !found {
			found = true
			out.Type = contract.TabType(typ)
			out.Version = toVersion(c.s.variant.GuardedVersion(tabID, noteVersion, tabVersion))
		}
		if id != nil {
			out.Items = append(out.Items, contract.Attachment{ID: *id, Title: *title, URL: *url, CreatedAt: *created})
		}
	}
	if err := rows.Err(); err != nil {
		return out, err
	}
	if !found {
		return out, c.missing(ctx, noteID, tabID)
	}
	return out, contract.DecodeContent(&out, data)
}

// missing says which of the Note and the tab a read found no row for.
func (c *Session) missing(ctx context.Context, noteID, tabID string) error {
	if noteID == "" {
		return contract.Invalid("note_id", "required")
	}
	var ok bool
	if err := c.conn.QueryRow(ctx, sqlNoteExists, lookup(noteID)).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	return &contract.NotFoundError{Field: "tab_id", ID: tabID}
}

// ReadSheetRange is the read_sheet_range tool: at most 100 × 100 cells of one
// sheet, null where a cell is empty.
func (c *Session) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return contract.ReadRange(ctx, c, req)
}

// ListNoteAttachments is the list_note_attachments tool: one page of file or
// source metadata, never content or signed links.
func (c *Session) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	page, err := c.listNoteAttachments(ctx, req)
	if err != nil {
		return contract.AttachmentPage{}, c.fail(contract.ToolListNoteAttachments, err)
	}
	return page, nil
}

func (c *Session) listNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	p, err := req.Page()
	if err != nil {
		return contract.AttachmentPage{}, err
	}
	page := contract.AttachmentPage{NoteID: req.NoteID, Kind: p.Kind}
	if req.NoteID == "" {
		return page, contract.Invalid("note_id", "required")
	}
	if c.conn == nil {
		return page, errClosed
	}
	rows, err := c.conn.Query(ctx, sqlAttachments, lookup(req.NoteID), p.Kind, p.After, int64(p.Limit)+1)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	found := false
	var items []contract.Attachment
	var seqs []int64
	for rows.Next() {
		found = true
		var seq *int64
		var id, title, url, created *string
		if err := rows.Scan(&seq, &id, &title, &url, &created); err != nil {
			return page, err
		}
		if seq != nil {
			items = append(items, contract.Attachment{ID: *id, Title: *title, URL: *url, CreatedAt: *created})
			seqs = append(seqs, *seq)
		}
	}
	if err := rows.Err(); err != nil {
		return page, err
	}
	if !found {
		return page, &contract.NotFoundError{Field: "note_id", ID: req.NoteID}
	}
	page.Items, page.NextCursor = p.Cut(items, seqs)
	return page, nil
}
