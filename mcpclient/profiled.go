package mcpclient

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// profiled is what a Target holds of the profile it maps the contract
// through: the profile, and the variables its set-up bound.
type profiled struct {
	p    *profile.Profile
	vars profile.Vars
}

// prepare checks that the server lists the profile's set-up tools and makes
// the profile's once-only set-up calls, binding their variables.
func (t *Target) prepare(ctx context.Context, p *profile.Profile) error {
	var missing []string
	for _, steps := range [][]*profile.Step{p.Setup.Once, p.Setup.Create} {
		for _, s := range steps {
			if !t.Offers(s.Tool) && !contains(missing, s.Tool) {
				missing = append(missing, s.Tool)
			}
		}
	}
	if err := LacksError(t.name, "profile "+p.Name+"'s set-up", missing, t.listed()); err != nil {
		return err
	}
	pr := &profiled{p: p, vars: profile.Vars{}}
	for name, v := range p.Variables {
		pr.vars[name] = profile.Text(v)
	}
	for i, st := range p.Setup.Once {
		field := fmt.Sprintf("setup.once[%d]", i)
		r, err := t.callStep(ctx, t.control, field, &st.Call, pr.vars)
		if err != nil {
			return err
		}
		for name, ex := range st.Bind {
			v, err := ex.String(p.Name, r)
			if err != nil {
				return err
			}
			pr.vars[name] = profile.Text(v)
		}
	}
	t.prof = pr
	return nil
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// callStep makes a set-up call; an error result is an error naming the
// profile field.
func (t *Target) callStep(ctx context.Context, c *conn, field string, call *profile.Call, vars profile.Vars) (*profile.Reply, error) {
	args, err := call.Args().Render(vars)
	if err != nil {
		return nil, fmt.Errorf("target %s: profile %s: %s: %v", t.name, t.profName(), field, err)
	}
	r, err := c.reply(ctx, call.Tool, args)
	if err != nil {
		return nil, err
	}
	if r.IsError {
		return nil, fmt.Errorf("target %s: profile %s: %s (%s): error result %s", t.name, t.profName(), field, call.Tool, r.Short())
	}
	return r, nil
}

func (t *Target) profName() string {
	if t.prof == nil {
		return t.opts.Profile.Name
	}
	return t.prof.p.Name
}

// Profile returns the profile the Target maps the contract through, nil
// for the contract's own tools.
func (t *Target) Profile() *profile.Profile {
	if t.prof == nil {
		return nil
	}
	return t.prof.p
}

// reply calls a tool with JSON arguments and returns its result as a
// profile reads it. A JSON-RPC error is a *ProtocolError.
func (c *conn) reply(ctx context.Context, tool string, args json.RawMessage) (*profile.Reply, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, &ProtocolError{Target: c.t.name, Tool: tool, Code: je.Code, Message: je.Message}
		}
		return nil, c.fail(tool, err)
	}
	r := &profile.Reply{IsError: res.IsError, Structured: res.StructuredContent}
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if i > 0 {
				r.Text += "\n"
			}
			r.Text += tc.Text
		}
	}
	return r, nil
}

// requireProfiled is Require for a Target with a profile: each capability
// needs a section of the profile and the tool it calls.
func (t *Target) requireProfiled(why string, caps ...contract.Capability) error {
	p := t.prof.p
	var unmapped, missing []string
	for _, c := range caps {
		section, tools := p.Capability(c)
		if tools == nil {
			if !contains(unmapped, section) {
				unmapped = append(unmapped, section)
			}
			continue
		}
		for _, tool := range tools {
			if !t.Offers(tool) && !contains(missing, tool) {
				missing = append(missing, tool)
			}
		}
	}
	if len(unmapped) > 0 {
		return fmt.Errorf("profile %s maps no %s, which %s needs (target %s lists %s)", p.Name, strings.Join(unmapped, " or "), why, t.name, strings.Join(t.listed(), ", "))
	}
	return LacksError(t.name, why, missing, t.listed())
}

// ProfileMapping names the profile the Target maps the contract through (""
// for none) and says whether its write sends a version the server checks
// and an idempotency key (conform.Mapped).
func (t *Target) ProfileMapping() (name string, versionCheck, key bool) {
	if t.prof == nil {
		return "", false, false
	}
	w := t.prof.p.Write
	return t.prof.p.Name, w.VersionCheck, w.Args().Uses("idempotency_key")
}

// servedProfiled is the variant of a Target with a profile: a guard on the
// Note when its write checks the version, none otherwise.
func (t *Target) servedProfiled() contract.Variant {
	v := contract.Variant{Guard: contract.GuardNone}
	if t.prof.p.Write.VersionCheck {
		v.Guard = contract.GuardNote
	}
	return v.WithDefaults()
}

// describeProfiled says what the runs of a Target with a profile go to.
func (t *Target) describeProfiled() string {
	p := t.prof.p
	check := "no version check"
	if p.Write.VersionCheck {
		check = "a version check"
	}
	s := fmt.Sprintf("MCP server %s through profile %s (%s with %s", t.name, p.Name, p.Write.Tool, check)
	if p.Caveat != "" {
		s += "; " + p.Caveat
	}
	return s + ")"
}

// openProfiled returns the Backend of one run through the profile.
func (t *Target) openProfiled(run contract.RunSpec) (contract.Backend, error) {
	var nonce [4]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	return &pbackend{t: t, run: runName(run.Name) + "." + hex.EncodeToString(nonce[:]), docs: map[string]string{}, sessions: map[*psession]bool{}}, nil
}

// runName makes a run's name safe in a path or an ID.
func runName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, name)
	if name == "" {
		return "run"
	}
	return name
}

// pbackend is one run through a profile: each of the run's Notes is a
// document on the server, named by the profile's set-up.
type pbackend struct {
	t   *Target
	run string

	mu       sync.Mutex
	docs     map[string]string // the run's Note ID → the document
	sessions map[*psession]bool
}

// vars returns the variables every call of the run's Note noteID has.
func (b *pbackend) vars(noteID, doc string) profile.Vars {
	vars := make(profile.Vars, len(b.t.prof.vars)+10)
	for k, v := range b.t.prof.vars {
		vars[k] = v
	}
	vars["run"] = profile.Text(b.run)
	vars["note"] = profile.Text(noteID)
	if doc != "" {
		vars["document"] = profile.Text(doc)
	}
	return vars
}

// CreateNote makes a fresh document for the Note: the profile's set-up, or
// the document the user named.
func (b *pbackend) CreateNote(ctx context.Context, noteID string) error {
	t := b.t
	p := t.prof.p
	var doc string
	if t.opts.Note != "" {
		t.mu.Lock()
		used := t.namedUsed
		t.namedUsed = true
		t.mu.Unlock()
		if used {
			return fmt.Errorf("target %s: the document named (%s) serves one run only", t.name, t.opts.Note)
		}
		doc = t.opts.Note
	} else {
		var err error
		if doc, err = p.Setup.DocumentName(b.vars(noteID, "")); err != nil {
			return fmt.Errorf("target %s: profile %s: setup.document: %v", t.name, p.Name, err)
		}
		vars := b.vars(noteID, doc)
		for i, st := range p.Setup.Create {
			if _, err := t.callStep(ctx, t.control, fmt.Sprintf("setup.create[%d]", i), &st.Call, vars); err != nil {
				return err
			}
		}
	}
	b.mu.Lock()
	b.docs[noteID] = doc
	b.mu.Unlock()
	return nil
}

// Session opens an MCP session of its own.
func (b *pbackend) Session(ctx context.Context) (contract.Session, error) {
	c, err := b.t.connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &psession{b: b, c: c, texts: map[contract.Version]string{}}
	b.mu.Lock()
	b.sessions[s] = true
	b.mu.Unlock()
	return s, nil
}

// Close closes the sessions of the run still open.
func (b *pbackend) Close() error {
	return closeAll(&b.mu, b.sessions, (*psession).Close)
}

// psession is one MCP session through a profile: a contract.Session whose
// Note is a document and whose text tab is the document's content.
type psession struct {
	b *pbackend
	c *conn

	mu    sync.Mutex
	texts map[contract.Version]string // the content read or written at a version, for a patch's base
	order []contract.Version
	trace func(tool string, args json.RawMessage, reply string)
}

// maxTexts bounds the contents a session keeps for patches: the base of a
// write is one of the last few it read or wrote.
const maxTexts = 8

func (s *psession) remember(v contract.Version, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.texts[v]; !ok {
		s.order = append(s.order, v)
		if len(s.order) > maxTexts {
			delete(s.texts, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.texts[v] = text
}

func (s *psession) base(v contract.Version) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.texts[v]
	return t, ok
}

// prof returns the profile.
func (s *psession) prof() *profile.Profile { return s.b.t.prof.p }

// vars returns the variables of a call on the Note noteID.
func (s *psession) vars(noteID string) (profile.Vars, error) {
	s.b.mu.Lock()
	doc, ok := s.b.docs[noteID]
	s.b.mu.Unlock()
	if !ok {
		return nil, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	return s.b.vars(noteID, doc), nil
}

// call renders the call's arguments and makes it.
func (s *psession) call(ctx context.Context, field string, call *profile.Call, vars profile.Vars) (*profile.Reply, error) {
	args, err := call.Args().Render(vars)
	if err != nil {
		return nil, fmt.Errorf("target %s: profile %s: %s: %v", s.b.t.name, s.prof().Name, field, err)
	}
	r, err := s.c.reply(ctx, call.Tool, args)
	s.mu.Lock()
	trace := s.trace
	s.mu.Unlock()
	if trace != nil {
		reply := ""
		if r != nil {
			reply = r.Text
			if r.IsError {
				reply = "isError: " + reply
			}
		} else if err != nil {
			reply = err.Error()
		}
		trace(call.Tool, args, reply)
	}
	return r, err
}

// Trace has every call of the session reported to f: the tool, the
// arguments sent and the reply's text (conform's evidence).
func (s *psession) Trace(f func(tool string, args json.RawMessage, reply string)) {
	s.mu.Lock()
	s.trace = f
	s.mu.Unlock()
}

// RefusedError is an error result the server answered a call through a
// profile with, which the profile does not recognize as a conflict.
type RefusedError struct {
	Target, Profile, Field, Tool string
	Reply                        string // cut short
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("target %s: profile %s: %s (%s): error result %s", e.Target, e.Profile, e.Field, e.Tool, e.Reply)
}

// Refusal says what the server answered.
func (e *RefusedError) Refusal() string { return e.Tool + " answered an error result " + e.Reply }

// failed is an error result a profile does not recognize as a conflict.
func (s *psession) failed(field, tool string, r *profile.Reply) error {
	return &RefusedError{Target: s.b.t.name, Profile: s.prof().Name, Field: field, Tool: tool, Reply: r.Short()}
}

// writeVars returns the variables of a write on the Note noteID that expects
// version v and sends key.
func (s *psession) writeVars(noteID string, v contract.Version, key string) (profile.Vars, error) {
	vars, err := s.vars(noteID)
	if err != nil {
		return nil, err
	}
	vars["expected_version"] = versionValue(v)
	vars["idempotency_key"] = profile.Text(key)
	return vars, nil
}

// write makes a call that writes and returns its reply; a reply that is a
// conflict, or any other error result, is returned as an error.
func (s *psession) write(ctx context.Context, field string, call *profile.Call, vars profile.Vars) (*profile.Reply, error) {
	r, err := s.call(ctx, field, call, vars)
	if err != nil {
		return nil, err
	}
	if err := s.conflict(r); err != nil {
		return nil, err
	}
	if r.IsError {
		return nil, s.failed(field, call.Tool, r)
	}
	return r, nil
}

// conflict returns the conflict the reply is, or nil.
func (s *psession) conflict(r *profile.Reply) error {
	c := s.prof().Conflict
	if !c.Matches(r) {
		return nil
	}
	var cur contract.Version
	if c.CurrentVersion != nil {
		v, err := c.CurrentVersion.Version(s.prof().Name, r)
		if err != nil {
			return err
		}
		cur = v
	}
	return &contract.ConflictError{Current: cur}
}

// digest is the version of a content on a server without versions: the
// start of its SHA-256, which tells every content apart.
func digest(text string) contract.Version {
	sum := sha256.Sum256([]byte(text))
	return contract.Version("sha256:" + hex.EncodeToString(sum[:8]))
}

// versionValue is a version as a template variable: a counter stays a
// number.
func versionValue(v contract.Version) profile.Value {
	if v == "" {
		return profile.Value{}
	}
	if _, err := strconv.ParseUint(string(v), 10, 64); err == nil {
		return profile.Raw(string(v), []byte(v))
	}
	return profile.Text(string(v))
}

func (s *psession) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	vars, err := s.vars(noteID)
	if err != nil {
		return contract.TabContent{}, err
	}
	if tabID != "markdown" {
		return contract.TabContent{}, &contract.NotFoundError{Field: "tab_id", ID: tabID}
	}
	p := s.prof()
	r, err := s.call(ctx, "read", &p.Read.Call, vars)
	if err != nil {
		return contract.TabContent{}, err
	}
	if r.IsError {
		return contract.TabContent{}, s.failed("read", p.Read.Tool, r)
	}
	text, err := p.Read.Content.String(p.Name, r)
	if err != nil {
		return contract.TabContent{}, err
	}
	v := digest(text)
	if p.Read.Version != nil {
		if v, err = p.Read.Version.Version(p.Name, r); err != nil {
			return contract.TabContent{}, err
		}
	}
	if p.Write.Mode() != profile.ModeContent {
		s.remember(v, text)
	}
	return contract.TabContent{NoteID: noteID, TabID: "markdown", Type: contract.TypeMarkdown, Label: "Text", Version: v, Text: text}, nil
}

func (s *psession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.EditResult{}, err
	}
	p := s.prof()
	if req.TabID != "markdown" || req.Operation != contract.OpReplaceText {
		return contract.EditResult{}, contract.Invalid("operation", "profile %s writes the text (replace_text on the markdown tab) only", p.Name)
	}
	w := p.Write
	switch w.Mode() {
	case profile.ModeContent:
		vars["content"] = profile.Text(req.Text)
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
		} else {
			old, repl, ok := patch(base, req.Text)
			if !ok {
				return contract.EditResult{}, contract.Invalid("text", "profile %s writes patches, and this change has no text of the document to anchor on", p.Name)
			}
			vars["old"], vars["new"] = profile.Text(old), profile.Text(repl)
		}
	}
	r, err := s.write(ctx, "write", &w.Call, vars)
	if err != nil {
		return contract.EditResult{}, err
	}
	v := digest(req.Text)
	if w.Version != nil {
		if v, err = w.Version.Version(p.Name, r); err != nil {
			return contract.EditResult{}, err
		}
	}
	if w.Mode() != profile.ModeContent {
		s.remember(v, req.Text)
	}
	res := contract.EditResult{NoteID: req.NoteID, TabID: req.TabID, Version: v, Changed: "text"}
	if w.Replayed != nil {
		res.Replayed = w.Replayed.Bool(r)
	}
	return res, nil
}

// patch returns the smallest find-and-replace in whole lines of base that
// makes text: the lines of base the change touches (at least one, the line
// before an insertion) and what they become. False when base has no line to
// anchor on.
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
	keep := len(base) - end
	return base[start:end], text[start : len(text)-keep], true
}

// fixedTabs are the tabs every Note has, as list_note_tabs shows them.
func fixedTabs() []contract.TabInfo {
	out := make([]contract.TabInfo, len(contract.FixedTabs))
	for i, t := range contract.FixedTabs {
		out[i] = contract.TabInfo{TabID: string(t), Type: t, Label: string(t), Position: i}
	}
	return out
}

func (s *psession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
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
	r, err := s.call(ctx, "list", &l.Call, vars)
	if err != nil {
		return contract.TabList{}, err
	}
	if r.IsError {
		return contract.TabList{}, s.failed("list", l.Tool, r)
	}
	items, err := l.Items.Items(p.Name, r)
	if err != nil {
		return contract.TabList{}, err
	}
	var tabs []contract.TabInfo
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
		tabs = append(tabs, tab)
		labels = append(labels, label)
	}
	v := digest(strings.Join(labels, "\n"))
	if l.Version != nil {
		if v, err = l.Version.Version(p.Name, r); err != nil {
			return contract.TabList{}, err
		}
	}
	return contract.TabList{NoteID: noteID, Version: v, Tabs: tabs}, nil
}

func (s *psession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	p := s.prof()
	c := p.Create
	if c == nil {
		return contract.CreateResult{}, contract.Invalid("tab_type", "profile %s maps no create", p.Name)
	}
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.CreateResult{}, err
	}
	vars["label"] = profile.Text(req.Label)
	vars["tab_type"] = profile.Text(string(req.TabType))
	r, err := s.write(ctx, "create", &c.Call, vars)
	if err != nil {
		return contract.CreateResult{}, err
	}
	res := contract.CreateResult{NoteID: req.NoteID, TabID: req.Label, Type: req.TabType, Label: req.Label}
	err = s.created(c, r, &res.TabID, &res.Version, &res.Replayed)
	return res, err
}

func (s *psession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
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
	r, err := s.write(ctx, "add_source", &a.Call, vars)
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
func (s *psession) created(c *profile.Create, r *profile.Reply, id *string, version *contract.Version, replayed *bool) error {
	var err error
	if c.ID != nil {
		if *id, err = c.ID.String(s.prof().Name, r); err != nil {
			return err
		}
	}
	if c.Version != nil {
		if *version, err = c.Version.Version(s.prof().Name, r); err != nil {
			return err
		}
	}
	if c.Replayed != nil {
		*replayed = c.Replayed.Bool(r)
	}
	return nil
}

func (s *psession) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
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
	r, err := s.call(ctx, "list_sources", &l.Call, vars)
	if err != nil {
		return page, err
	}
	if r.IsError {
		return page, s.failed("list_sources", l.Tool, r)
	}
	items, err := l.Items.Items(p.Name, r)
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

func (s *psession) ReadSheetRange(context.Context, contract.RangeRequest) (contract.SheetRange, error) {
	return contract.SheetRange{}, contract.Invalid("tab_id", "profile %s maps no sheets", s.prof().Name)
}

// Ping sends an MCP ping.
func (s *psession) Ping(ctx context.Context) error {
	if err := s.c.cs.Ping(ctx, nil); err != nil {
		return s.c.fail("ping", err)
	}
	return nil
}

// Close ends the MCP session; over stdio, its server process.
func (s *psession) Close() error {
	s.b.mu.Lock()
	open := s.b.sessions[s]
	delete(s.b.sessions, s)
	s.b.mu.Unlock()
	if !open {
		return nil
	}
	return s.c.close()
}

var (
	_ contract.Session = (*psession)(nil)
	_ Pinger           = (*psession)(nil)
)
