package mcpclient

// The profile interpreter: the codec of a server with tools of its own. Each
// operation of the contract is the server's own tool the profile maps, its
// arguments rendered from the profile's templates, its reply read with the
// profile's extracts; the Notes are documents the profile's set-up makes, and
// the profile is tried on one before any run (probe).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// interpreter is the codec of a Target given a profile.
type interpreter struct{}

// open checks that the server lists the profile's set-up tools (those of
// each document's set-up too, unless the user named the document), makes
// its set-up calls, and tries the profile on a document of its own (probe),
// unless the user named the one document to run on.
func (interpreter) open(ctx context.Context, t *Target) error {
	p := t.prof.p
	steps := p.Setup.Once
	if t.opts.Note == "" { // a document named needs no create
		steps = append(slices.Clip(steps), p.Setup.Create...)
	}
	if err := t.lacksSetup(steps); err != nil {
		return err
	}
	if t.opts.Note != "" {
		for i, st := range p.Setup.Create {
			if len(st.Bind) > 0 {
				return fmt.Errorf("target %s: profile %s: setup.create[%d] binds variables of each document's, and the document named (%s) is not created", t.name, p.Name, i, t.opts.Note)
			}
		}
	}
	if err := t.setUp(ctx); err != nil {
		return err
	}
	if t.opts.Note != "" {
		return nil
	}
	return t.probe(ctx)
}

// capability is the profile's section of c and the tool it calls.
func (interpreter) capability(t *Target, c contract.Capability) (string, []string) {
	return t.prof.p.Capability(c)
}

// mapping is what the profile's write maps.
func (interpreter) mapping(t *Target) contract.Mapping {
	p := t.prof.p
	m := contract.Mapping{Profile: p.Name, VersionFormat: p.VersionFormat(), ServerTools: p.ServerTools()}
	if w := p.Write; w != nil {
		m.VersionCheck, m.Key, m.VersionOmittable = w.VersionCheck, w.Args().Uses("idempotency_key"), w.Args().Drops("expected_version")
	}
	return m
}

// served is the variant the profile says the server has: a guard on the
// Note when its write checks the version, none otherwise; the versions the
// profile says.
func (interpreter) served(t *Target) (contract.Variant, bool) {
	v := contract.Variant{Guard: contract.GuardNone, VersionFormat: t.prof.p.VersionFormat()}
	if w := t.prof.p.Write; w != nil && w.VersionCheck {
		v.Guard = contract.GuardNote
	}
	return v.WithDefaults(), true
}

// describe names the profile and its write.
func (interpreter) describe(t *Target) string {
	p := t.prof.p
	var s string
	switch {
	case p.Write == nil:
		s = fmt.Sprintf("MCP server %s through profile %s (read-only: no write", t.name, p.Name)
	case p.Write.VersionCheck:
		s = fmt.Sprintf("MCP server %s through profile %s (%s with a version check", t.name, p.Name, p.Write.Tool)
	default:
		s = fmt.Sprintf("MCP server %s through profile %s (%s with no version check", t.name, p.Name, p.Write.Tool)
	}
	if p.Caveat != "" {
		s += "; " + p.Caveat
	}
	return s + ")"
}

// createNote makes the document the profile's set-up names and creates, or
// takes the document the user named, which serves one run.
func (interpreter) createNote(ctx context.Context, b *backend, noteID string) error {
	t := b.t
	if t.opts.Note != "" {
		if !t.claimNamed() {
			return fmt.Errorf("target %s: the document named (%s) serves one run only", t.name, t.opts.Note)
		}
		b.setDocument(noteID, t.opts.Note)
		return nil
	}
	doc, err := b.documentName(noteID)
	if err != nil {
		return err
	}
	return b.createDocument(ctx, noteID, doc)
}

// session is s reading and writing through the profile.
func (interpreter) session(_ context.Context, s *session) (contract.Session, error) {
	return newProfileSession(s), nil
}

// errorOf is nil: what an error reply means is the profile's conflict and
// error classes.
func (interpreter) errorOf(*profile.Reply) error { return nil }

// profileSession is a session through a profile: its Note is a document and
// its text tab the document's content. A write of a change (a patch, an
// append) is made against a content the session read or wrote.
type profileSession struct {
	*session

	textsMu sync.Mutex
	texts   map[contract.Version]string // the content read or written at a version, for a patch's base
	order   []contract.Version
}

// newProfileSession returns s as a session through the profile, with no
// content read yet.
func newProfileSession(s *session) *profileSession {
	return &profileSession{session: s, texts: map[contract.Version]string{}}
}

// maxTexts bounds the contents a session keeps for patches: the base of a
// write is one of the last few it read or wrote.
const maxTexts = 8

func (s *profileSession) remember(v contract.Version, text string) {
	s.textsMu.Lock()
	defer s.textsMu.Unlock()
	if _, ok := s.texts[v]; !ok {
		s.order = append(s.order, v)
		if len(s.order) > maxTexts {
			delete(s.texts, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.texts[v] = text
}

func (s *profileSession) base(v contract.Version) (string, bool) {
	s.textsMu.Lock()
	defer s.textsMu.Unlock()
	t, ok := s.texts[v]
	return t, ok
}

// vars returns the variables of a call on the Note noteID, a Note of the
// run's.
func (s *profileSession) vars(noteID string) (profile.Vars, error) {
	doc, ok := s.b.document(noteID)
	if !ok {
		return nil, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	return s.b.vars(noteID, doc), nil
}

// writeVars returns the variables of a write on the Note noteID that expects
// version v and sends key.
func (s *profileSession) writeVars(noteID string, v contract.Version, key string) (profile.Vars, error) {
	vars, err := s.vars(noteID)
	if err != nil {
		return nil, err
	}
	if val := versionValue(v); val.Set {
		vars["expected_version"] = val
	}
	vars["idempotency_key"] = profile.Text(key)
	return vars, nil
}

// do renders the call's arguments from the profile's template and makes
// it (session.send, which classifies the reply): the reply of an ok, with
// the variables its extractions render, or the error of the outcome; a
// template that cannot be rendered is a fault of the profile's, a
// *contract.ClientError.
func (s *profileSession) do(ctx context.Context, kind callKind, field string, call *profile.ToolCall, vars profile.Vars) (*profile.Reply, error) {
	args, err := call.Args().Render(vars)
	if err != nil {
		return nil, &contract.ClientError{Err: fmt.Errorf("target %s: profile %s: %s: %v", s.b.t.name, s.prof().Name, field, err)}
	}
	r, err := s.send(ctx, kind, field, call.Tool, args)
	if r != nil {
		r.Vars = vars // what the extractions' where render
	}
	return r, err
}

func (s *profileSession) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
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

func (s *profileSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
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

func (s *profileSession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
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

func (s *profileSession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
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

func (s *profileSession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
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
func (s *profileSession) created(c *profile.CreateMapping, r *profile.Reply, id *string, version *contract.Version, replayed *bool) error {
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

func (s *profileSession) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
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

func (s *profileSession) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return contract.SheetRange{}, contract.Invalid("tab_id", "profile %s maps no sheets", s.prof().Name)
}

// probe tries the profile on a fresh document of its own before any run:
// its set-up, its read and, for a write of the whole content, a write of
// what was read. A profile that cannot read the server's replies, or whose
// calls the server refuses, is one error naming the field, before anything
// is measured; during a run the same failure is the server's doing (it lost
// the document, or answered half of it), counted as an unreadable reply.
//
// A read or a write whose tool the server does not list is not tried: its
// call could only fail, in the server's words (-32602 unknown tool). What a
// command uses it asks for (Require), and the server's lack is then the one
// line naming the tools missing and the tools listed; conform, which asks
// too, reports its clauses.
func (t *Target) probe(ctx context.Context) error {
	if t.Require("", contract.CapRead) != nil {
		return nil
	}
	b, err := t.openProfiled(contract.RunSpec{Name: "notesbench-probe"})
	if err != nil {
		return err
	}
	pb := b.(*backend)
	// The trial's document is notesbench's, not a run's: it goes, --keep
	// or not.
	defer pb.teardown(false)
	// Its calls are set-up, bounded as a start is: a short --call-timeout
	// is for the run's calls, and a loaded machine may answer the first
	// ones slowly.
	s := newProfileSession(&session{b: pb, c: t.control, setup: t.startTimeout()})
	trying := func(err error) error {
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w (tried on a fresh document before any run)", unwrapOutcome(err))
	}
	if err := b.CreateNote(ctx, "probe"); err != nil {
		return trying(err)
	}
	read, err := s.ReadNoteTab(ctx, "probe", "markdown")
	if err != nil {
		return trying(err)
	}
	if w := t.prof.p.Write; w == nil || w.Mode() != profile.ModeContent || t.Require("", contract.CapWrite) != nil {
		return nil
	}
	_, err = s.EditNoteTab(ctx, contract.EditRequest{NoteID: "probe", TabID: "markdown", ExpectedVersion: read.Version,
		IdempotencyKey: "notesbench-probe", Operation: contract.OpReplaceText, Text: read.Text})
	if err != nil {
		return trying(err)
	}
	return nil
}

// unwrapOutcome returns the error an outcome's wrapping carries, for a
// message that is the server's or the profile's words alone.
func unwrapOutcome(err error) error {
	var ie *contract.IndeterminateError
	if errors.As(err, &ie) && ie.Err != nil {
		return ie.Err
	}
	return err
}

// digest is the version of a content on a server without versions: the
// start of its SHA-256, which tells every content apart.
func digest(text string) contract.Version {
	sum := sha256.Sum256([]byte(text))
	return contract.Version("sha256:" + hex.EncodeToString(sum[:8]))
}

// versionValue is a version as a template variable: a counter stays a
// number, as its text; an empty version has no value, so a member that is
// the version alone is left out.
func versionValue(v contract.Version) profile.VarValue {
	if v == "" {
		return profile.VarValue{}
	}
	if contract.IsCounter(string(v)) {
		return profile.Raw(string(v), []byte(v))
	}
	return profile.Text(string(v))
}

var (
	_ contract.Session = (*profileSession)(nil)
	_ Pinger           = (*profileSession)(nil)
)
