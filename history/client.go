package history

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// Client records the calls of one client of a Log: an MCP session of a
// server, or the scripted person. Its calls are recorded as those of one
// editor and session, with what a server can tell of what each write meant
// from what the client saw: a server cannot know what a client intends, but
// it knows what the client last read, and what its write did to it.
//
// For every write of a markdown tab's whole text the Client records the
// lines it adds to and drops from the client's last view of the tab
// (Call.ReadVersion, Adds, Drops), and the version of the view its content
// came from when that is not the version it sends (Call.BaseVersion): of
// the session's last few views, the one whose text the write keeps the most
// of (all of it when the text begins with the view's, see lacks), the latest
// of those that tie. It says so only when one of the client's calls was told
// the version it sends: a client that learned it elsewhere (in a session,
// or over a connection, of its own) may have built on what it saw there. A
// client that re-reads after a conflict and re-applies its change builds on
// its last view; one that takes the fresh version and resends the text it
// built before builds on an older one.
//
// A Client is safe for concurrent use; so is every Session it makes.
type Client struct {
	l         *Log
	editor    string
	version   string
	id        int
	stateless bool

	mu    sync.Mutex
	views map[[2]string][]view // per Note and tab, the last maxViews views, oldest first
	// told holds, per Note, the last maxViews versions the client's calls
	// were told (a read's, a write's, a conflict's current one).
	told map[string][]string
}

// maxViews is how many views of a tab a Client keeps, to find the one a
// write's content came from, and how many versions of a Note it keeps of
// those it was told.
const maxViews = 8

// view is a text a client saw: what a read returned, or what a write of its
// own that committed made.
type view struct {
	version string
	text    string
	lines   []string       // the non-blank lines, in order (parts of text)
	counts  map[string]int // how often each is there
}

func newView(version, text string) view {
	v := view{version: version, text: text, counts: map[string]int{}}
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		v.lines = append(v.lines, l)
		v.counts[l]++
	}
	return v
}

// Client returns the recorder of one client: editor names it (an MCP
// client's clientInfo name), version is its version ("" when it gave none),
// session its number.
func (l *Log) Client(editor, version string, session int) *Client {
	return &Client{l: l, editor: editor, version: version, id: session, views: map[[2]string][]view{}, told: map[string][]string{}}
}

// StatelessClient is Client for stateless requests (MCP 2026-07-28), which
// come on no MCP session: the requests the caller holds to be one client's
// are recorded as one session, each call marked Call.Stateless.
func (l *Log) StatelessClient(editor, version string, session int) *Client {
	c := l.Client(editor, version, session)
	c.stateless = true
	return c
}

// Session wraps inner, so that every call made through it is recorded as a
// call of the client. The wrapper offers the person's actions
// (contract.Person) too, recorded as calls of the extension tools that name
// them; they fail when inner does not offer them. Close closes inner.
func (c *Client) Session(inner contract.Session) contract.Session {
	return &clientSession{c: c, inner: inner}
}

// clientSession is one contract session whose calls a Client records.
type clientSession struct {
	c      *Client
	inner  contract.Session
	intent string // set by Intend: the mark of the writes from now on
}

var (
	_ contract.Session = (*clientSession)(nil)
	_ contract.Person  = (*clientSession)(nil)
)

// begin starts the record of a call.
func (s *clientSession) begin(tool, noteID string) Call {
	return Call{Editor: s.c.editor, ClientVersion: s.c.version, Session: s.c.id, Stateless: s.c.stateless, Tool: tool, Note: noteID, Invoke: s.c.l.Now()}
}

// beginText starts the record of a write of a markdown tab's whole text:
// what it does to the client's last view, and which view its content came
// from. The time and the views are taken at once, so that the last view is
// the latest that returned before the call was made.
func (s *clientSession) beginText(tool, noteID, tabID, text string, expected contract.Version) Call {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	c := s.begin(tool, noteID)
	c.Tab = tabID
	w := newView("", text)
	views := s.c.views[[2]string{noteID, tabID}]
	if len(views) == 0 {
		c.Adds = w.lines
		return c
	}
	last := views[len(views)-1]
	c.ReadVersion = last.version
	c.Adds, c.Drops = diff(last, w), diff(w, last)
	base, least := last, lacks(w, last)
	for i := len(views) - 2; i >= 0; i-- {
		if n := lacks(w, views[i]); n < least {
			base, least = views[i], n
		}
	}
	if expected != "" && base.version != string(expected) && slices.Contains(s.c.told[noteID], string(expected)) {
		c.BaseVersion = base.version
	}
	return c
}

// lacks counts the lines of the view v that the written text w lacks, or
// none when w's text begins with v's whole text: such a write appended to
// v, maybe onto a last line with no newline at its end, which line by line
// it lacks (an older view without that line it keeps whole), and was built
// on v.
func lacks(w, v view) int {
	if strings.HasPrefix(w.text, v.text) {
		return 0
	}
	return len(diff(w, v))
}

// diff returns the lines of b beyond those of a, each as often as it is
// beyond, in b's order.
func diff(a, b view) []string {
	var out []string
	seen := map[string]int{}
	for _, l := range b.lines {
		seen[l]++
		if seen[l] > a.counts[l] {
			out = append(out, l)
		}
	}
	return out
}

// end completes the record of a call and writes it; seen, when set, is a
// view the call gave its client (a read's text, a committed write's).
func (s *clientSession) end(c Call, version contract.Version, err error, seen *view) {
	s.c.mu.Lock()
	c.Return = s.c.l.Now()
	setOutcome(&c, version, err)
	if c.Version != "" {
		told := append(s.c.told[c.Note], c.Version)
		s.c.told[c.Note] = told[max(0, len(told)-maxViews):]
	}
	if seen != nil && err == nil {
		k := [2]string{c.Note, c.Tab}
		seen.version = string(version)
		views := append(s.c.views[k], *seen)
		if len(views) > maxViews {
			views = views[len(views)-maxViews:]
		}
		s.c.views[k] = views
	}
	s.c.mu.Unlock()
	s.c.l.record(c)
}

func (s *clientSession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	c := s.begin(contract.ToolListNoteTabs, noteID)
	res, err := s.inner.ListNoteTabs(ctx, noteID)
	if err == nil {
		c.Listed = make([]FinalTab, len(res.Tabs))
		for i, t := range res.Tabs {
			c.Listed[i] = FinalTab{TabID: t.TabID, Type: t.Type, Label: t.Label}
		}
	}
	s.end(c, res.Version, err, nil)
	return res, err
}

func (s *clientSession) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	c := s.begin(contract.ToolReadNoteTab, noteID)
	c.Tab = tabID
	res, err := s.inner.ReadNoteTab(ctx, noteID, tabID)
	var seen *view
	if err == nil && res.Type == contract.TypeMarkdown {
		v := newView("", res.Text)
		seen = &v
	}
	s.end(c, res.Version, err, seen)
	return res, err
}

func (s *clientSession) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	c := s.begin(contract.ToolReadSheetRange, req.NoteID)
	c.Tab = req.TabID
	res, err := s.inner.ReadSheetRange(ctx, req)
	s.end(c, res.Version, err, nil)
	return res, err
}

func (s *clientSession) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	c := s.begin(contract.ToolListNoteAttachments, req.NoteID)
	res, err := s.inner.ListNoteAttachments(ctx, req)
	s.end(c, "", err, nil)
	return res, err
}

func (s *clientSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	var c Call
	var seen *view
	if req.Operation == contract.OpReplaceText {
		c = s.beginText(contract.ToolEditNoteTab, req.NoteID, req.TabID, req.Text, req.ExpectedVersion)
		v := newView("", req.Text)
		seen = &v
	} else {
		c = s.begin(contract.ToolEditNoteTab, req.NoteID)
		c.Tab = req.TabID
	}
	c.Operation = string(req.Operation)
	c.ExpectedVersion, c.Key, c.Intent = string(req.ExpectedVersion), req.IdempotencyKey, s.intent
	if req.Operation == contract.OpSheetSetRange {
		c.At = &Cell{SheetID: req.SheetID, Row: req.StartRow, Col: req.StartCol}
	}
	res, err := s.inner.EditNoteTab(ctx, req)
	c.Replayed = res.Replayed
	if res.Replayed {
		seen = nil // the text at the version replayed is the first call's
	}
	s.end(c, res.Version, err, seen)
	return res, err
}

func (s *clientSession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	c := s.begin(contract.ToolCreateNoteTab, req.NoteID)
	c.ExpectedVersion, c.Key, c.Intent = string(req.ExpectedVersion), req.IdempotencyKey, s.intent
	c.TabType, c.Label = string(req.TabType), req.LabelOrDefault()
	res, err := s.inner.CreateNoteTab(ctx, req)
	c.Replayed, c.TabID = res.Replayed, res.TabID
	s.end(c, res.Version, err, nil)
	return res, err
}

func (s *clientSession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	c := s.begin(contract.ToolAddNoteSource, req.NoteID)
	c.ExpectedVersion, c.Key, c.URL, c.Intent = string(req.ExpectedVersion), req.IdempotencyKey, req.URL, s.intent
	res, err := s.inner.AddNoteSource(ctx, req)
	c.Replayed, c.SourceID = res.Replayed, res.SourceID
	s.end(c, res.Version, err, nil)
	return res, err
}

// errNoPerson is a person's action on a session that offers none.
var errNoPerson = errors.New("history: the session offers no person's actions")

// person returns inner's person's actions, or nil.
func (s *clientSession) person() contract.Person {
	p, _ := s.inner.(contract.Person)
	return p
}

func (s *clientSession) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.begin(ext.ToolMoveTab, noteID)
	c.Tab, c.Position = tabID, &pos
	err := p.MoveTab(ctx, noteID, tabID, pos)
	s.end(c, "", err, nil)
	return err
}

func (s *clientSession) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.begin(ext.ToolRenameTab, noteID)
	c.Tab, c.Label = tabID, label
	err := p.RenameTab(ctx, noteID, tabID, label)
	s.end(c, "", err, nil)
	return err
}

func (s *clientSession) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	p := s.person()
	if p == nil {
		return contract.TabInfo{}, errNoPerson
	}
	c := s.begin(ext.ToolAddTab, noteID)
	c.TabType, c.Label = string(typ), label
	res, err := p.AddTab(ctx, noteID, typ, label)
	if err == nil {
		c.TabID, c.Label = res.TabID, res.Label
	}
	s.end(c, "", err, nil)
	return res, err
}

func (s *clientSession) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.begin(ext.ToolSetCells, noteID)
	c.Tab, c.At = tabID, &Cell{SheetID: sheetID, Row: row, Col: col}
	err := p.SetCells(ctx, noteID, tabID, sheetID, row, col, values)
	s.end(c, "", err, nil)
	return err
}

func (s *clientSession) SetText(ctx context.Context, noteID, text string) error {
	p := s.person()
	if p == nil {
		return errNoPerson
	}
	c := s.beginText(ext.ToolSetText, noteID, string(contract.TypeMarkdown), text, "")
	err := p.SetText(ctx, noteID, text)
	s.end(c, "", err, nil)
	return err
}

// Close closes the inner session; it records nothing.
func (s *clientSession) Close() error { return s.inner.Close() }
