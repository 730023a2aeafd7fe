package store

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// CreateNoteTab is the create_note_tab tool: it adds a Slides or Sheet tab at the
// end of the bar, optionally filled with an outline, and returns its exact ID.
// The ID is <type>-<n>-<base36 creation time in ms>, n a per-Note counter that is
// never reused.
func (c *Conn) CreateNoteTab(ctx context.Context, req CreateRequest) (CreateResult, error) {
	if err := req.validate(); err != nil {
		return CreateResult{}, err
	}
	label := strings.TrimSpace(req.Label)
	if label == "" {
		label = defaultLabel(req.TabType)
	}
	return runWrite(ctx, c, writeSpec[CreateResult]{
		tool:     "create_note_tab",
		noteID:   req.NoteID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		apply: func(t *target, next Version) (CreateResult, error) {
			data := emptyData(req.TabType)
			if len(req.Slides) > 0 {
				data = mustJSON(slidesData{Slides: req.Slides})
			}
			info, err := c.addTab(ctx, t, req.TabType, label, data)
			return CreateResult{NoteID: req.NoteID, TabID: info.TabID, Type: info.Type, Label: info.Label,
				Position: info.Position, Version: next}, err
		},
	})
}

func (r CreateRequest) validate() error {
	switch {
	case r.NoteID == "":
		return invalid("note_id", "required")
	case r.ExpectedVersion == "":
		return invalid("expected_version", "required")
	case r.IdempotencyKey == "":
		return invalid("idempotency_key", "required")
	case r.TabType != TypeSlides && r.TabType != TypeSheet:
		return invalid("tab_type", "%q is not one of slides, sheet", r.TabType)
	case r.Slides != nil && r.TabType != TypeSlides:
		return invalid("slides", "only a slides tab takes an outline")
	case r.Slides != nil:
		return validateOutline("slides", r.Slides)
	}
	return nil
}

// addTab inserts a tab at the end of the bar with the next ID of the Note's
// counter. The caller bumps the version.
func (c *Conn) addTab(ctx context.Context, t *target, typ TabType, label, data string) (TabInfo, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT count(*) FROM tabs WHERE note_id = ?`, t.noteID).Scan(&n); err != nil {
		return TabInfo{}, err
	}
	ms := c.s.opts.Clock.Now().UnixMilli()
	info := TabInfo{
		TabID:    fmt.Sprintf("%s-%d-%s", typ, t.nextTab, strconv.FormatInt(ms, 36)),
		Type:     typ,
		Label:    label,
		Position: n,
	}
	if _, err := c.exec(ctx, `UPDATE notes SET next_tab = next_tab + 1 WHERE id = ?`, t.noteID); err != nil {
		return TabInfo{}, err
	}
	_, err := c.exec(ctx, `INSERT INTO tabs (note_id, tab_id, type, label, position, data, version) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		t.noteID, info.TabID, string(typ), label, n, data, c.s.firstVersion())
	return info, err
}

// AddNoteSource is the add_note_source tool: it adds an http or https citation to
// the Sources tab and returns the new source ID.
func (c *Conn) AddNoteSource(ctx context.Context, req SourceRequest) (SourceResult, error) {
	if err := req.validate(); err != nil {
		return SourceResult{}, err
	}
	return runWrite(ctx, c, writeSpec[SourceResult]{
		tool:     "add_note_source",
		noteID:   req.NoteID,
		expected: req.ExpectedVersion,
		key:      req.IdempotencyKey,
		apply: func(t *target, next Version) (SourceResult, error) {
			id, err := c.addAttachment(ctx, t, "sources", strings.TrimSpace(req.Title), req.URL)
			return SourceResult{NoteID: req.NoteID, SourceID: id, Version: next}, err
		},
	})
}

func (r SourceRequest) validate() error {
	switch {
	case r.NoteID == "":
		return invalid("note_id", "required")
	case r.ExpectedVersion == "":
		return invalid("expected_version", "required")
	case r.IdempotencyKey == "":
		return invalid("idempotency_key", "required")
	case strings.TrimSpace(r.Title) == "":
		return invalid("title", "required")
	}
	return checkSourceURL(r.URL)
}

// checkSourceURL accepts only absolute http and https URLs with a host.
func checkSourceURL(raw string) error {
	if raw == "" {
		return invalid("url", "required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalid("url", "not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" {
			return invalid("url", "%q has no scheme (want http or https)", raw)
		}
		return invalid("url", "scheme %q not allowed (want http or https)", u.Scheme)
	}
	if u.Host == "" {
		return invalid("url", "%q has no host", raw)
	}
	return nil
}

func (c *Conn) addAttachment(ctx context.Context, t *target, kind, title, link string) (string, error) {
	id := fmt.Sprintf("%s-%d", strings.TrimSuffix(kind, "s"), t.nextItem)
	created := c.s.opts.Clock.Now().UTC().Truncate(time.Millisecond).Format(msLayout)
	if _, err := c.exec(ctx, `UPDATE notes SET next_item = next_item + 1 WHERE id = ?`, t.noteID); err != nil {
		return "", err
	}
	_, err := c.exec(ctx, `INSERT INTO attachments (note_id, kind, seq, id, title, url, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		t.noteID, kind, t.nextItem, id, title, link, created)
	return id, err
}
