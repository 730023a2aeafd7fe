package mcpclient

// The seven tools of the contract through a profile: each session method calls
// the server's own tool the profile maps, and reads its reply as the profile says;
// the contract's own tools pass through.

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// contract reports whether the session's calls are the contract's own.
func (s *session) contract() bool { return s.b.t.prof.contract }

func (s *session) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	if s.contract() {
		return passthrough[contract.TabContent](ctx, s, contract.ToolReadNoteTab, map[string]string{"note_id": noteID, "tab_id": tabID}, noteID)
	}
	vars, err := s.vars(noteID)
	if err != nil {
		return contract.TabContent{}, err
	}
	p := s.prof()
	if tabID != "markdown" {
		return contract.TabContent{}, &contract.NotFoundError{Field: "tab_id", ID: tabID}
	}
	r, err := s.do(ctx, reading, "read", &p.Read.ToolCall, vars)
	if err != nil {
		return contract.TabContent{}, err
	}
	text, err := s.str(p.Read.Content, r)
	if err != nil {
		return contract.TabContent{}, err
	}
	v := digest(text)
	if p.Read.Version != nil {
		if v, err = s.version(p.Read.Version, r); err != nil {
			return contract.TabContent{}, err
		}
	}
	if p.Write != nil && p.Write.Mode() != profile.ModeContent {
		s.remember(v, text)
	}
	return contract.TabContent{NoteID: noteID, TabID: "markdown", Type: contract.TypeMarkdown, Label: "Text", Version: v, Text: text}, nil
}

func (s *session) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if s.contract() {
		return passthrough[contract.EditResult](ctx, s, contract.ToolEditNoteTab, req, req.NoteID)
	}
	p := s.prof()
	if req.TabID != "markdown" || req.Operation != contract.OpReplaceText {
		return contract.EditResult{}, contract.Invalid("operation", "profile %s writes the text (replace_text on the markdown tab) only", p.Name)
	}
	if p.Write == nil {
		return contract.EditResult{}, contract.Invalid("operation", "profile %s maps no write: its server is read-only", p.Name)
	}
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.EditResult{}, err
	}
	w := p.Write
	call, field, versionAt := &w.ToolCall, "write", w.Version
	switch w.Mode() {
	case profile.ModeContent:
		setContent(vars, w.Args(), req.Text)
	case profile.ModePatch, profile.ModeAppend:
		base, ok := s.base(req.ExpectedVersion)
		if !ok {
			return contract.EditResult{}, contract.Invalid("expected_version", "profile %s writes a change to what was read, and this session read no content at version %s", p.Name, req.ExpectedVersion)
		}
		if w.Mode() == profile.ModeAppend {
			added, ok := strings.CutPrefix(req.Text, base)
			if !ok {
				return contract.EditResult{}, contract.Invalid("text", "profile %s writes appends only, and the text does not start with the content read", p.Name)
			}
			vars["append"] = profile.Text(strings.TrimPrefix(added, "\n"))
		} else if base == "" && w.Empty != nil {
			// An empty document has no line to anchor a patch on: the
			// profile's write of a whole text.
			call, field = &w.Empty.ToolCall, "write.empty"
			if w.Empty.Version != nil {
				versionAt = w.Empty.Version
			}
			setContent(vars, w.Empty.Args(), req.Text)
		} else if base == "" {
			// The same, with the patch itself: nothing becomes the text.
			vars["old"], vars["new"] = profile.Text(""), profile.Text(req.Text)
		} else {
			old, repl, ok := patch(base, req.Text)
			if !ok {
				return contract.EditResult{}, contract.Invalid("text", "profile %s writes patches, and this change has no text of the document to anchor on", p.Name)
			}
			vars["old"], vars["new"] = profile.Text(old), profile.Text(repl)
		}
	}
	r, err := s.do(ctx, writing, field, call, vars)
	if err != nil {
		return contract.EditResult{}, err
	}
	v := digest(req.Text)
	if versionAt != nil {
		if v, err = s.version(versionAt, r); err != nil {
			return contract.EditResult{}, err
		}
	}
	if w.Mode() != profile.ModeContent {
		s.remember(v, req.Text)
	}
	res := contract.EditResult{NoteID: req.NoteID, TabID: req.TabID, Version: v, Changed: "text"}
	if w.Replayed != nil {
		res.Replayed = w.Replayed.Bool(r) && !s.twinned
	}
	return res, nil
}

// patch returns the smallest find-and-replace in whole lines of base that
// makes text: the lines of base the change touches (at least one, the line
// before an insertion) and what they become, grown by whole lines until the
// old text occurs once in base, so that a tool that replaces the first
// match replaces this one. False when base has no line to anchor on, or no
// span of its lines around the change occurs in it once.
func patch(base, text string) (old, repl string, ok bool) {
	p := 0
	for p < len(base) && p < len(text) && base[p] == text[p] {
		p++
	}
	sfx := 0
	for sfx < len(base)-p && sfx < len(text)-p && base[len(base)-1-sfx] == text[len(text)-1-sfx] {
		sfx++
	}
	start := strings.LastIndexByte(base[:p], '\n') + 1
	end := len(base) - sfx
	if i := strings.IndexByte(base[end:], '\n'); i >= 0 {
		end += i
	} else {
		end = len(base)
	}
	if start == end && start > 0 {
		// An insertion at a line's start: anchor on the line before.
		start = strings.LastIndexByte(base[:start-1], '\n') + 1
	}
	if start == end {
		return "", "", false
	}
	// Grow the span by a line before, then after, until it is unique.
	for strings.Count(base, base[start:end]) > 1 {
		switch {
		case start > 0:
			start = strings.LastIndexByte(base[:start-1], '\n') + 1
		case end < len(base):
			if i := strings.IndexByte(base[end+1:], '\n'); i >= 0 {
				end += 1 + i
			} else {
				end = len(base)
			}
		default:
			return "", "", false
		}
	}
	keep := len(base) - end
	return base[start:end], text[start : len(text)-keep], true
}

// setContent sets the variables of a whole text: {content}, and, where the
// template names it, {content_lines}, the text's lines as a JSON array (none
// for an empty text).
func setContent(vars profile.Vars, t *profile.Template, text string) {
	vars["content"] = profile.Text(text)
	if !t.Uses("content_lines") {
		return
	}
	lines := []string{}
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	js, _ := json.Marshal(lines)
	vars["content_lines"] = profile.Raw(string(js), js)
}

// fixedTabs are the tabs every Note has, as list_note_tabs shows them.
func fixedTabs() []contract.TabInfo {
	out := make([]contract.TabInfo, len(contract.FixedTabs))
	for i, t := range contract.FixedTabs {
		out[i] = contract.TabInfo{TabID: string(t), Type: t, Label: string(t), Position: i}
	}
	return out
}

func (s *session) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	if s.contract() {
		return passthrough[contract.TabList](ctx, s, contract.ToolListNoteTabs, map[string]string{"note_id": noteID}, noteID)
	}
	p := s.prof()
	l := p.List
	if l == nil {
		// Without a listing, a Note is its text: the version is the read's.
		read, err := s.ReadNoteTab(ctx, noteID, "markdown")
		if err != nil {
			return contract.TabList{}, err
		}
		return contract.TabList{NoteID: noteID, Version: read.Version, Tabs: fixedTabs()}, nil
	}
	vars, err := s.vars(noteID)
	if err != nil {
		return contract.TabList{}, err
	}
	r, err := s.do(ctx, reading, "list", &l.ToolCall, vars)
	if err != nil {
		return contract.TabList{}, err
	}
	items, err := s.items(l.Items, r)
	if err != nil {
		return contract.TabList{}, err
	}
	tabs := []contract.TabInfo{}
	if l.Type == nil {
		tabs = fixedTabs()
	}
	var labels []string
	for _, it := range items {
		label, ok := l.Label.ItemString(it)
		if !ok {
			continue // not an item of the listing's kind
		}
		tab := contract.TabInfo{TabID: label, Type: contract.TypeSheet, Label: label, Position: len(tabs)}
		if l.ID != nil {
			if id, ok := l.ID.ItemString(it); ok {
				tab.TabID = id
			}
		}
		if l.Type != nil {
			if typ, ok := l.Type.ItemString(it); ok {
				tab.Type = contract.TabType(typ)
			}
		}
		if l.Position != nil {
			if pos, ok := l.Position.ItemString(it); ok {
				if n, err := strconv.Atoi(pos); err == nil {
					tab.Position = n
				}
			}
		}
		tabs = append(tabs, tab)
		labels = append(labels, label)
	}
	v := digest(strings.Join(labels, "\n"))
	if l.Version != nil {
		if v, err = s.version(l.Version, r); err != nil {
			return contract.TabList{}, err
		}
	}
	return contract.TabList{NoteID: noteID, Version: v, Tabs: tabs}, nil
}

func (s *session) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	if s.contract() {
		return passthrough[contract.CreateResult](ctx, s, contract.ToolCreateNoteTab, req, req.NoteID)
	}
	p := s.prof()
	c := p.Create
	if c == nil {
		return contract.CreateResult{}, contract.Invalid("tab_type", "profile %s maps no create", p.Name)
	}
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.CreateResult{}, err
	}
	if req.Label != "" {
		vars["label"] = profile.Text(req.Label)
	}
	vars["tab_type"] = profile.Text(string(req.TabType))
	r, err := s.do(ctx, writing, "create", &c.ToolCall, vars)
	if err != nil {
		return contract.CreateResult{}, err
	}
	res := contract.CreateResult{NoteID: req.NoteID, TabID: req.Label, Type: req.TabType, Label: req.LabelOrDefault()}
	err = s.created(c, r, &res.TabID, &res.Version, &res.Replayed)
	return res, err
}

func (s *session) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	if s.contract() {
		return passthrough[contract.SourceResult](ctx, s, contract.ToolAddNoteSource, req, req.NoteID)
	}
	p := s.prof()
	a := p.AddSource
	if a == nil {
		return contract.SourceResult{}, contract.Invalid("url", "profile %s maps no add_source", p.Name)
	}
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.SourceResult{}, err
	}
	vars["url"] = profile.Text(req.URL)
	vars["title"] = profile.Text(req.Title)
	r, err := s.do(ctx, writing, "add_source", &a.ToolCall, vars)
	if err != nil {
		return contract.SourceResult{}, err
	}
	res := contract.SourceResult{NoteID: req.NoteID, SourceID: req.URL}
	err = s.created(a, r, &res.SourceID, &res.Version, &res.Replayed)
	return res, err
}

// created reads the reply r to c, a create with a key, into id, version and
// replayed, each only where the profile extracts it; it stops at the first
// extract that fails, with what it read before it left in place.
func (s *session) created(c *profile.CreateMapping, r *profile.Reply, id *string, version *contract.Version, replayed *bool) error {
	var err error
	if c.ID != nil {
		if *id, err = s.str(c.ID, r); err != nil {
			return err
		}
	}
	if c.Version != nil {
		if *version, err = s.version(c.Version, r); err != nil {
			return err
		}
	}
	if c.Replayed != nil {
		*replayed = c.Replayed.Bool(r) && !s.twinned
	}
	return nil
}

func (s *session) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	if s.contract() {
		return passthrough[contract.AttachmentPage](ctx, s, contract.ToolListNoteAttachments, req, req.NoteID)
	}
	page := contract.AttachmentPage{NoteID: req.NoteID, Kind: req.Kind, Items: []contract.Attachment{}}
	if page.Kind == "" {
		page.Kind = "sources"
	}
	vars, err := s.vars(req.NoteID)
	if err != nil {
		return page, err
	}
	p := s.prof()
	l := p.ListSources
	if l == nil || page.Kind != "sources" {
		return page, nil // a profile without a listing of sources has none to show
	}
	limit := req.Limit
	if limit == 0 {
		limit = contract.MaxPageLimit
	}
	vars["limit"] = profile.Raw(strconv.Itoa(limit), []byte(strconv.Itoa(limit)))
	if req.Cursor != "" {
		vars["cursor"] = profile.Text(req.Cursor)
	}
	r, err := s.do(ctx, reading, "list_sources", &l.ToolCall, vars)
	if err != nil {
		return page, err
	}
	items, err := s.items(l.Items, r)
	if err != nil {
		return page, err
	}
	for _, it := range items {
		url, ok := l.URL.ItemString(it)
		if !ok {
			continue // not a source
		}
		a := contract.Attachment{ID: url, URL: url}
		if l.ID != nil {
			if id, ok := l.ID.ItemString(it); ok {
				a.ID = id
			}
		}
		if l.Title != nil {
			a.Title, _ = l.Title.ItemString(it)
		}
		page.Items = append(page.Items, a)
	}
	if l.NextCursor != nil {
		if v, ok := l.NextCursor.Value(r); ok {
			page.NextCursor, _ = v.(string)
		}
	}
	return page, nil
}

func (s *session) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	if s.b.t.prof.contract {
		return passthrough[contract.SheetRange](ctx, s, contract.ToolReadSheetRange, req, req.NoteID)
	}
	return contract.SheetRange{}, contract.Invalid("tab_id", "profile %s maps no sheets", s.prof().Name)
}

// Pinger is what a Session over MCP adds for the transport's floor: the
// cheapest round trip its protocol has, one that touches no tool (an MCP
// ping, or a server/discover on 2026-07-28, which has no ping).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Ping makes the round trip of the transport's floor (conn.ping).
func (s *session) Ping(ctx context.Context) error {
	if err := s.c.ping(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.c.fail(s.c.floorCall(), err)
	}
	return nil
}

// Close ends the MCP session; over stdio, its server process.
func (s *session) Close() error {
	s.b.mu.Lock()
	open := s.b.sessions[s]
	delete(s.b.sessions, s)
	s.b.mu.Unlock()
	if !open || s.c == s.b.t.control {
		return nil
	}
	return s.c.close()
}

var (
	_ contract.Session = (*session)(nil)
	_ Pinger           = (*session)(nil)
)
