package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
)

// ListNoteTabs is the list_note_tabs tool: the Note version and every tab
// instance in bar order.
func (c *Conn) ListNoteTabs(ctx context.Context, noteID string) (TabList, error) {
	l := TabList{NoteID: noteID}
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

func (c *Conn) tabs(ctx context.Context, noteID string) ([]TabInfo, error) {
	rows, err := c.query(ctx, `SELECT tab_id, type, label, position FROM tabs WHERE note_id = ? ORDER BY position`, noteID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tabs []TabInfo
	for rows.Next() {
		var t TabInfo
		if err := rows.Scan(&t.TabID, &t.Type, &t.Label, &t.Position); err != nil {
			return nil, err
		}
		tabs = append(tabs, t)
	}
	return tabs, rows.Err()
}

// ReadNoteTab is the read_note_tab tool: one tab's content and the version to
// send back with a write (the Note's, or the tab's under GuardTab).
func (c *Conn) ReadNoteTab(ctx context.Context, noteID, tabID string) (TabContent, error) {
	if tabID == "" {
		return TabContent{}, invalid("tab_id", "required")
	}
	out := TabContent{NoteID: noteID, TabID: tabID}
	err := c.inReadTx(ctx, func() error {
		var noteVersion, tabVersion any
		var data string
		err := c.queryRowHot(ctx, hotReadTab, noteID, tabID).
			Scan(&noteVersion, &tabVersion, &out.Type, &out.Label, &data)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = c.loadTarget(ctx, noteID, tabID) // says which of the two is missing
			return err
		}
		if err != nil {
			return err
		}
		out.Version = toVersion(noteVersion)
		if c.s.opts.Guard == GuardTab {
			out.Version = toVersion(tabVersion)
		}
		return c.decodeContent(ctx, &out, data)
	})
	if err != nil {
		return TabContent{}, err
	}
	return out, nil
}

func (c *Conn) decodeContent(ctx context.Context, out *TabContent, data string) error {
	switch out.Type {
	case TypeMarkdown:
		out.Text = data
	case TypeSlides:
		var d slidesData
		if err := jsonUnmarshal(data, &d); err != nil {
			return err
		}
		out.Slides = d.Slides
	case TypeSheet:
		var d sheetData
		if err := jsonUnmarshal(data, &d); err != nil {
			return err
		}
		out.Sheets = d.Sheets
	default:
		items, _, err := c.attachments(ctx, out.NoteID, string(out.Type), 0, -1)
		out.Items = items
		return err
	}
	return nil
}

// ReadSheetRange is the read_sheet_range tool: at most 100 × 100 cells of one
// sheet, null where a cell is empty.
func (c *Conn) ReadSheetRange(ctx context.Context, req RangeRequest) (SheetRange, error) {
	switch {
	case req.StartRow < 0 || req.StartRow >= maxSheetRows:
		return SheetRange{}, invalid("start_row", "must be 0 to %d", maxSheetRows-1)
	case req.StartCol < 0 || req.StartCol >= maxSheetCols:
		return SheetRange{}, invalid("start_col", "must be 0 to %d", maxSheetCols-1)
	case req.Rows < 0 || req.Rows > MaxRangeRows:
		return SheetRange{}, invalid("rows", "must be 1 to %d", MaxRangeRows)
	case req.Cols < 0 || req.Cols > MaxRangeCols:
		return SheetRange{}, invalid("cols", "must be 1 to %d", MaxRangeCols)
	}
	tab, err := c.ReadNoteTab(ctx, req.NoteID, req.TabID)
	if err != nil {
		return SheetRange{}, err
	}
	if tab.Type != TypeSheet {
		return SheetRange{}, invalid("tab_id", "tab %q is a %s tab, not a sheet", req.TabID, tab.Type)
	}
	sh, err := findSheet(tab.Sheets, req.SheetID)
	if err != nil {
		return SheetRange{}, err
	}
	rows, cols := req.Rows, req.Cols
	if rows == 0 {
		rows = min(MaxRangeRows, max(0, len(sh.Cells)-req.StartRow))
	}
	if cols == 0 {
		width := 0
		for _, r := range sh.Cells {
			width = max(width, len(r))
		}
		cols = min(MaxRangeCols, max(0, width-req.StartCol))
	}
	values := make([][]any, rows)
	for i := range values {
		values[i] = make([]any, cols)
		if r := req.StartRow + i; r < len(sh.Cells) {
			for j := range values[i] {
				if col := req.StartCol + j; col < len(sh.Cells[r]) {
					values[i][j] = sh.Cells[r][col]
				}
			}
		}
	}
	return SheetRange{NoteID: req.NoteID, TabID: req.TabID, SheetID: sh.SheetID, StartRow: req.StartRow,
		StartCol: req.StartCol, Values: values, Version: tab.Version}, nil
}

// ListNoteAttachments is the list_note_attachments tool: one page of file or
// source metadata, never content or signed links.
func (c *Conn) ListNoteAttachments(ctx context.Context, req AttachmentsRequest) (AttachmentPage, error) {
	kind := req.Kind
	if kind == "" {
		kind = "sources"
	}
	if kind != "files" && kind != "sources" {
		return AttachmentPage{}, invalid("kind", "%q is not one of files, sources", req.Kind)
	}
	limit := req.Limit
	if limit == 0 {
		limit = MaxPageLimit
	}
	if limit < 1 || limit > MaxPageLimit {
		return AttachmentPage{}, invalid("limit", "must be 1 to %d", MaxPageLimit)
	}
	var after int64
	if req.Cursor != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(req.Cursor, "after-"), 10, 64)
		if err != nil || !strings.HasPrefix(req.Cursor, "after-") || n < 0 {
			return AttachmentPage{}, invalid("cursor", "%q is not a cursor from list_note_attachments", req.Cursor)
		}
		after = n
	}
	page := AttachmentPage{NoteID: req.NoteID, Kind: kind}
	err := c.inReadTx(ctx, func() error {
		if _, err := c.loadTarget(ctx, req.NoteID, ""); err != nil {
			return err
		}
		items, last, err := c.attachments(ctx, req.NoteID, kind, after, limit+1)
		if err != nil {
			return err
		}
		if len(items) > limit {
			items = items[:limit]
			page.NextCursor = "after-" + strconv.FormatInt(last[limit-1], 10)
		}
		page.Items = nonNil(items)
		return nil
	})
	if err != nil {
		return AttachmentPage{}, err
	}
	return page, nil
}

// attachments returns up to limit items (all when limit < 0) after sequence
// number after, with their sequence numbers.
func (c *Conn) attachments(ctx context.Context, noteID, kind string, after int64, limit int) ([]Attachment, []int64, error) {
	rows, err := c.query(ctx, `SELECT seq, id, title, url, created_at FROM attachments WHERE note_id = ? AND kind = ? AND seq > ? ORDER BY seq LIMIT ?`,
		noteID, kind, after, limit)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var items []Attachment
	var seqs []int64
	for rows.Next() {
		var a Attachment
		var seq int64
		if err := rows.Scan(&seq, &a.ID, &a.Title, &a.URL, &a.CreatedAt); err != nil {
			return nil, nil, err
		}
		items = append(items, a)
		seqs = append(seqs, seq)
	}
	return items, seqs, rows.Err()
}
