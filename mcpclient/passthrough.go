package mcpclient

// The contract passthrough: the codec of a server of the Notes contract, a
// Target given no profile. Its Notes are made and named as the built-in notes
// profile says, and every call is the contract's own, its typed request sent
// whole with the document as note_id and its result object read as the
// contract defines it, through the one path of every call (session.send).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// passthrough is the codec of a Target given no profile.
type passthrough struct {
	described *ext.Describe // what the server says it is; nil when it does not say
}

// open makes the profile's set-up calls and asks the server what it serves
// (notesbench_describe), when it offers that. Each Note's
// notesbench_create_note is asked for at CreateNote: a server without it
// serves one run on the Note the user names.
func (c *passthrough) open(ctx context.Context, t *Target) error {
	if err := t.lacksSetup(t.prof.p.Setup.Once); err != nil {
		return err
	}
	if err := t.setUp(ctx); err != nil {
		return err
	}
	if t.Offers(ext.ToolDescribe) {
		var d ext.Describe
		r, err := t.control.reply(ctx, ext.ToolDescribe, json.RawMessage(`{}`))
		if err == nil && !r.IsError && json.Unmarshal(r.JSON(), &d) == nil {
			c.described = &d
		}
	}
	return nil
}

// capabilityTools are the tools of the contract each capability calls.
var capabilityTools = map[contract.Capability][]string{
	contract.CapRead:        {contract.ToolReadNoteTab},
	contract.CapWrite:       {contract.ToolEditNoteTab},
	contract.CapCreate:      {contract.ToolCreateNoteTab},
	contract.CapList:        {contract.ToolListNoteTabs},
	contract.CapAddSource:   {contract.ToolAddNoteSource},
	contract.CapListSources: {contract.ToolListNoteAttachments},
	contract.CapEditTabs:    {contract.ToolEditNoteTab, contract.ToolReadNoteTab},
	contract.CapPerson:      ext.PersonTools,
}

// capability is the contract's own tools of c.
func (*passthrough) capability(t *Target, c contract.Capability) (string, []string) {
	section, _ := t.prof.p.Capability(c)
	return section, capabilityTools[c]
}

// mapping is the contract's own tools, which carry everything, with the
// versions the server says it has.
func (c *passthrough) mapping(t *Target) contract.Mapping {
	var m contract.Mapping
	if v, ok := c.served(t); ok {
		m.VersionFormat = v.VersionFormat
	}
	return m
}

// served is the variant the server says it serves (notesbench_describe).
func (c *passthrough) served(*Target) (contract.Variant, bool) {
	if c.described == nil {
		return contract.Variant{}, false
	}
	return c.described.Variant.WithDefaults(), true
}

// describe is what the server says it is, or "as served" when it says
// nothing.
func (c *passthrough) describe(t *Target) string {
	if c.described == nil {
		return fmt.Sprintf("MCP server %s, contract variant as served", t.name)
	}
	d := c.described
	return fmt.Sprintf("MCP server %s (%s; %s; %s)", t.name, d.Server, d.Backend, d.Variant.WithDefaults())
}

// createNote asks the server for a new Note (notesbench_create_note, as the
// notes profile's set-up says), or takes the Note the user named, once it
// is seen to be fresh, for one run.
func (*passthrough) createNote(ctx context.Context, b *backend, noteID string) error {
	t := b.t
	if t.opts.Note != "" {
		if !t.claimNamed() {
			return fmt.Errorf("target %s offers no %s, and the Note named (%s) serves one run only", t.name, ext.ToolCreateNote, t.opts.Note)
		}
		if err := b.checkFresh(ctx, noteID, t.opts.Note); err != nil {
			return err
		}
		b.setDocument(noteID, t.opts.Note)
		return nil
	}
	if !t.Offers(ext.ToolCreateNote) {
		return fmt.Errorf("target %s offers no %s: name an existing, fresh Note to run on", t.name, ext.ToolCreateNote)
	}
	doc, err := b.documentName(noteID)
	if err != nil {
		return err
	}
	if err := b.createDocument(ctx, noteID, doc); err != nil {
		// The step's error names the target already: keep what it wraps,
		// or, wrapping nothing, the error itself, after what was being done.
		if cause := errors.Unwrap(err); cause != nil {
			return fmt.Errorf("target %s: creating Note %s: %w", t.name, noteID, cause)
		}
		return fmt.Errorf("creating Note %s: %w", noteID, err)
	}
	return nil
}

// checkFresh makes sure the document named is as a new Note is: the three
// fixed tabs, no text, no sources.
func (b *backend) checkFresh(ctx context.Context, noteID, doc string) error {
	b.mu.Lock()
	b.docs[noteID] = doc
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.docs, noteID)
		b.mu.Unlock()
	}()
	s := &contractSession{&session{b: b, c: b.t.control}}
	named := func(err error) error { return fmt.Errorf("target %s: the Note named, %s: %w", b.t.name, doc, err) }
	l, err := s.ListNoteTabs(ctx, noteID)
	if err != nil {
		return named(err)
	}
	text, err := s.ReadNoteTab(ctx, noteID, "markdown")
	if err != nil {
		return named(err)
	}
	src, err := s.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: noteID, Kind: "sources", Limit: 1})
	if err != nil {
		return named(err)
	}
	if len(l.Tabs) != len(contract.FixedTabs) || text.Text != "" || len(src.Items) > 0 {
		return fmt.Errorf("target %s: the Note named, %s, is not fresh (%s, %s of text, sources %d+): a run needs a new Note",
			b.t.name, doc, plural.Count(len(l.Tabs), "tab"), plural.Count(len(text.Text), "character"), len(src.Items))
	}
	return nil
}

// session is s making the contract's own calls, with the person's actions
// when the server offers them. A server that keeps its Notes in the memory
// of one process shows another process none of them: a session that does
// not see the run's Notes says so, rather than have them counted lost.
func (*passthrough) session(ctx context.Context, s *session) (contract.Session, error) {
	cs := &contractSession{s}
	if first := s.b.firstNote(); first != "" {
		_, err := cs.ReadNoteTab(ctx, first, "markdown")
		var nf *contract.NotFoundError
		if errors.As(err, &nf) && nf.Field == "note_id" {
			s.Close()
			return nil, fmt.Errorf("target %s: a new session does not see the Notes made in another: the server must keep its Notes where every session sees them (over stdio each session is a process of its own: e.g. notesbench serve --db FILE)", s.b.t.name)
		}
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	if s.b.t.offersPerson() {
		return &personSession{cs}, nil
	}
	return cs, nil
}

// errorOf is the contract's error an error result says.
func (*passthrough) errorOf(r *profile.Reply) error { return contract.ErrorOf(r.JSON()) }

// contractSession is a session whose calls are the contract's own.
type contractSession struct{ *session }

func (s *contractSession) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	return contractCall[contract.TabContent](ctx, s.session, contract.ToolReadNoteTab, map[string]string{"note_id": noteID, "tab_id": tabID}, noteID)
}

func (s *contractSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	return contractCall[contract.EditResult](ctx, s.session, contract.ToolEditNoteTab, req, req.NoteID)
}

func (s *contractSession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	return contractCall[contract.TabList](ctx, s.session, contract.ToolListNoteTabs, map[string]string{"note_id": noteID}, noteID)
}

func (s *contractSession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	return contractCall[contract.CreateResult](ctx, s.session, contract.ToolCreateNoteTab, req, req.NoteID)
}

func (s *contractSession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	return contractCall[contract.SourceResult](ctx, s.session, contract.ToolAddNoteSource, req, req.NoteID)
}

func (s *contractSession) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	return contractCall[contract.AttachmentPage](ctx, s.session, contract.ToolListNoteAttachments, req, req.NoteID)
}

func (s *contractSession) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return contractCall[contract.SheetRange](ctx, s.session, contract.ToolReadSheetRange, req, req.NoteID)
}

// contractCall makes the contract's own call of tool with req, a typed
// request whose note_id is the run's Note noteID, sent as the document's;
// the result's note_id comes back as the run's, and its errors are the
// contract's outcomes.
func contractCall[T any](ctx context.Context, s *session, tool string, req any, noteID string) (T, error) {
	var out T
	if _, ok := s.b.document(noteID); !ok && noteID != "" {
		return out, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	args, err := json.Marshal(req)
	if err != nil {
		return out, err
	}
	kind := reading
	if s.b.t.writeTools[tool] {
		kind = writing
	}
	r, err := s.send(ctx, kind, tool, tool, s.b.mapArgs(args))
	if err != nil {
		return out, err
	}
	body := r.JSON()
	if body == nil {
		return out, contract.Indeterminatef(contract.KindUnreadable, "target %s: %s: a result that is no JSON object: %s", s.b.t.name, tool, r.Short())
	}
	if err := json.Unmarshal(s.b.unmapResult(body), &out); err != nil {
		return out, contract.Indeterminatef(contract.KindUnreadable, "target %s: %s: result %s: %v", s.b.t.name, tool, profile.Cut(string(body), 160), err)
	}
	if s.twinned {
		notReplayed(&out)
	}
	return out, nil
}

// notReplayed clears the Replayed of a write's result: of a write and the
// twin a duplicate fault sent beside it, one made the result and the
// other replayed it; the history tells one write, so it is the one that
// made it.
func notReplayed(v any) {
	switch r := v.(type) {
	case *contract.EditResult:
		r.Replayed = false
	case *contract.CreateResult:
		r.Replayed = false
	case *contract.SourceResult:
		r.Replayed = false
	}
}

// mapArgs maps the note_id of a request to the document's. An empty
// note_id is sent as it is, for the server to refuse.
func (b *backend) mapArgs(args json.RawMessage) json.RawMessage {
	return rewrite(args, func(id string) string {
		if doc, ok := b.document(id); ok {
			return doc
		}
		return id
	}, false)
}

// unmapResult maps the note_id of a result (and the id of a not_found about
// a note_id, and that id where the message names it) back to the run's.
func (b *backend) unmapResult(body json.RawMessage) json.RawMessage {
	return rewrite(body, b.noteOf, true)
}

// unmapError maps the documents an error of the contract's names back to
// the run's Notes.
func (b *backend) unmapError(err error) error {
	switch e := err.(type) {
	case *contract.NotFoundError:
		if e.Field == "note_id" {
			return &contract.NotFoundError{Field: e.Field, ID: b.noteOf(e.ID)}
		}
	case *contract.InvalidArgumentError:
		msg := e.Message
		b.mu.Lock()
		for note, doc := range b.docs {
			if doc != "" {
				msg = strings.ReplaceAll(msg, doc, note)
			}
		}
		b.mu.Unlock()
		return &contract.InvalidArgumentError{Field: e.Field, Message: msg}
	}
	return err
}

// Caller is the JSON layer over the wire, with contract.Call's meaning: the
// result object of any contract outcome, an error only for a protocol or
// transport fault (a *ProtocolError when the server answered with a JSON-RPC
// error). Its arguments reach the server as they are, unvalidated, the
// run's Note IDs mapped to the documents'. A Session of a server of the
// contract offers it.
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
}

// Call makes a raw call (see Caller).
func (s *contractSession) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	args = s.b.mapArgs(args)
	r, err := s.c.reply(ctx, tool, args)
	s.traced(tool, args, r, err)
	if err != nil {
		return nil, err
	}
	body := r.JSON()
	if body == nil {
		what := "result"
		if r.IsError {
			what = "error result"
		}
		return nil, fmt.Errorf("target %s: %s: %s that is no result object: %s", s.b.t.name, tool, what, r.Short())
	}
	return s.b.unmapResult(body), nil
}

// personSession is a session on a server of the contract that offers the
// person's actions as extension tools.
type personSession struct{ *contractSession }

func (p *personSession) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	_, err := contractCall[json.RawMessage](ctx, p.session, ext.ToolMoveTab, ext.MoveTabRequest{NoteID: noteID, TabID: tabID, Position: pos}, noteID)
	return err
}

func (p *personSession) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	_, err := contractCall[json.RawMessage](ctx, p.session, ext.ToolRenameTab, ext.RenameTabRequest{NoteID: noteID, TabID: tabID, Label: label}, noteID)
	return err
}

func (p *personSession) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	return contractCall[contract.TabInfo](ctx, p.session, ext.ToolAddTab, ext.AddTabRequest{NoteID: noteID, TabType: typ, Label: label}, noteID)
}

func (p *personSession) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	_, err := contractCall[json.RawMessage](ctx, p.session, ext.ToolSetCells, ext.SetCellsRequest{NoteID: noteID, TabID: tabID, SheetID: sheetID,
		StartRow: row, StartCol: col, Values: values}, noteID)
	return err
}

func (p *personSession) SetText(ctx context.Context, noteID, text string) error {
	_, err := contractCall[json.RawMessage](ctx, p.session, ext.ToolSetText, ext.SetTextRequest{NoteID: noteID, Text: text}, noteID)
	return err
}

var (
	_ contract.Session = (*contractSession)(nil)
	_ Pinger           = (*contractSession)(nil)
	_ Caller           = (*contractSession)(nil)
	_ contract.Person  = (*personSession)(nil)
)

// rewrite returns obj, a JSON object, with the string value of its top-level
// note_id replaced by mapID of it; in a result (result true) also the id of a
// not_found whose field is note_id, and the ID where the message names it.
// Anything that is not an object, or has no such string, is returned as it
// is, for the server to judge. It reads obj once, without decoding it, and
// allocates little: it runs twice on every call.
func rewrite(obj json.RawMessage, mapID func(string) string, result bool) json.RawMessage {
	if !bytes.Contains(obj, []byte(`"note_id"`)) && bytes.IndexByte(obj, '\\') < 0 {
		return obj // no key can be note_id, escaped or not
	}
	var buf [16]member
	members, ok := topLevel(obj, buf[:0])
	if !ok {
		return obj
	}
	type edit struct {
		m    member
		with []byte
	}
	var editBuf [4]edit
	edits := editBuf[:0]
	var swapBuf [2][2]string
	swaps := swapBuf[:0] // the IDs mapped, old and new
	swap := func(m member) {
		id, ok := jsonString(obj[m.start:m.end])
		if !ok || id == "" {
			return
		}
		mapped := mapID(id)
		if mapped == id {
			return
		}
		edits = append(edits, edit{m, profile.AppendString(nil, mapped)})
		swaps = append(swaps, [2]string{id, mapped})
	}
	notFoundNote := false
	for _, m := range members {
		switch {
		case m.is(obj, "note_id"):
			swap(m)
		case result && m.is(obj, "field"):
			field, _ := jsonString(obj[m.start:m.end])
			notFoundNote = field == "note_id"
		}
	}
	if result && notFoundNote {
		for _, m := range members {
			if m.is(obj, "id") {
				swap(m)
			}
		}
	}
	if result && len(swaps) > 0 {
		for _, m := range members {
			if !m.is(obj, "message") {
				continue
			}
			msg := obj[m.start:m.end]
			for _, sw := range swaps {
				msg = bytes.ReplaceAll(msg, []byte(sw[0]), []byte(sw[1]))
			}
			edits = append(edits, edit{m, msg})
		}
	}
	if len(edits) == 0 {
		return obj
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.m.start - b.m.start })
	out := make([]byte, 0, len(obj)+64)
	at := 0
	for _, e := range edits {
		out = append(out, obj[at:e.m.start]...)
		out = append(out, e.with...)
		at = e.m.end
	}
	return append(out, obj[at:]...)
}

// jsonString decodes a JSON string value, and false when raw is none.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// member is one top-level member of a JSON object: where its key's text and
// its value are in the object, and the key decoded when it holds escapes.
type member struct {
	kstart, kend int
	start, end   int
	escaped      bool
	key          string // when escaped
}

// is reports whether the member's key is name.
func (m member) is(obj []byte, name string) bool {
	if m.escaped {
		return m.key == name
	}
	return string(obj[m.kstart:m.kend]) == name
}

// topLevel appends the members of the JSON object obj to out, and reports
// false when obj is not one. It checks the structure it walks (strings,
// brackets), not the values' contents: a malformed value is the server's to
// refuse.
func topLevel(obj []byte, out []member) ([]member, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return out, skipSpace(obj, i+1) == len(obj)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return nil, false
		}
		end, ok := skipString(obj, i)
		if !ok {
			return nil, false
		}
		m := member{kstart: i + 1, kend: end - 1}
		if bytes.IndexByte(obj[i:end], '\\') >= 0 {
			var key string
			if json.Unmarshal(obj[i:end], &key) != nil {
				return nil, false
			}
			m.key, m.escaped = key, true
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		m.start = skipSpace(obj, i+1)
		m.end, ok = skipValue(obj, m.start)
		if !ok {
			return nil, false
		}
		out = append(out, m)
		i = skipSpace(obj, m.end)
		if i >= len(obj) {
			return nil, false
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return out, skipSpace(obj, i+1) == len(obj)
		default:
			return nil, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the JSON string that starts at b[i], a quote.
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue returns the end of the JSON value that starts at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}
