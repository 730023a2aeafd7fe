package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// backend is one run over a Target. A run names its Notes as it likes
// ("note-1"), and a server keeps the Notes of every run it ever served, so
// the run's Note IDs are mapped to IDs of its own on the server: the run's
// prefix, or the Note the user named. The mapping is applied to the note_id
// of every request and every result, so the run never sees it.
type backend struct {
	t      *Target
	prefix string

	mu       sync.Mutex
	toServer map[string]string
	toClient map[string]string
	created  []string // server IDs of the Notes this run created
	sessions map[*session]bool
}

// server maps a run's Note ID to the server's; "" stays "", so that a call
// without a Note reaches the server as it is.
func (b *backend) server(id string) string {
	if id == "" {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.toServer[id]; ok {
		return s
	}
	return b.prefix + id
}

func (b *backend) client(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.toClient[id]; ok {
		return c
	}
	return strings.TrimPrefix(id, b.prefix)
}

// CreateNote creates the Note on the server with notesbench_create_note, or
// takes the Note the user named when the server offers no such tool.
func (b *backend) CreateNote(ctx context.Context, noteID string) error {
	t := b.t
	if t.Offers(ext.ToolCreateNote) {
		args, err := json.Marshal(ext.CreateNoteRequest{NoteID: noteID})
		if err != nil {
			return err
		}
		body, _, err := b.exchange(ctx, t.control, ext.ToolCreateNote, args)
		if err != nil {
			return err
		}
		if err := contract.ErrorOf(body); err != nil {
			return fmt.Errorf("target %s: creating Note %s: %w", t.name, noteID, err)
		}
		b.mu.Lock()
		b.created = append(b.created, b.prefix+noteID)
		b.mu.Unlock()
		return nil
	}
	if t.opts.Note == "" {
		return fmt.Errorf("target %s offers no %s: name an existing, fresh Note to run on", t.name, ext.ToolCreateNote)
	}
	t.mu.Lock()
	used := t.namedUsed
	t.namedUsed = true
	t.mu.Unlock()
	if used {
		return fmt.Errorf("target %s offers no %s, and the Note named (%s) serves one run only", t.name, ext.ToolCreateNote, t.opts.Note)
	}
	if err := b.checkFresh(ctx, t.opts.Note); err != nil {
		return err
	}
	b.mu.Lock()
	b.toServer[noteID] = t.opts.Note
	b.toClient[t.opts.Note] = noteID
	b.created = append(b.created, t.opts.Note)
	b.mu.Unlock()
	return nil
}

// checkFresh makes sure the Note named is as a new Note is: the three fixed
// tabs, no text, no sources.
func (b *backend) checkFresh(ctx context.Context, noteID string) error {
	s := &session{b: b, c: b.t.control}
	b.mu.Lock()
	b.toClient[noteID] = noteID
	b.toServer[noteID] = noteID
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.toClient, noteID)
		delete(b.toServer, noteID)
		b.mu.Unlock()
	}()
	l, err := s.ListNoteTabs(ctx, noteID)
	if err != nil {
		return fmt.Errorf("target %s: the Note named, %s: %w", b.t.name, noteID, err)
	}
	text, err := s.ReadNoteTab(ctx, noteID, "markdown")
	if err != nil {
		return fmt.Errorf("target %s: the Note named, %s: %w", b.t.name, noteID, err)
	}
	src, err := s.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: noteID, Kind: "sources", Limit: 1})
	if err != nil {
		return fmt.Errorf("target %s: the Note named, %s: %w", b.t.name, noteID, err)
	}
	if len(l.Tabs) != len(contract.FixedTabs) || text.Text != "" || len(src.Items) > 0 {
		return fmt.Errorf("target %s: the Note named, %s, is not fresh (%d tabs, %d characters of text, sources %d+): a run needs a new Note",
			b.t.name, noteID, len(l.Tabs), len(text.Text), len(src.Items))
	}
	return nil
}

// Session opens an MCP session of its own: over stdio a new server process,
// over HTTP a new session on a connection of its own.
func (b *backend) Session(ctx context.Context) (contract.Session, error) {
	c, err := b.t.connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{b: b, c: c}
	b.mu.Lock()
	var first string // a Note of the run, on the server
	if len(b.created) > 0 {
		first = b.created[0]
	}
	b.sessions[s] = true
	b.mu.Unlock()
	if first != "" {
		// A server that keeps its Notes in the memory of one process shows
		// another process none of them: say so rather than count them lost.
		var nf *contract.NotFoundError
		var err error
		if b.t.Offers(contract.ToolListNoteTabs) {
			_, err = s.ListNoteTabs(ctx, b.client(first))
		} else {
			_, err = s.ReadNoteTab(ctx, b.client(first), "markdown")
		}
		if errors.As(err, &nf) && nf.Field == "note_id" {
			s.Close()
			return nil, fmt.Errorf("target %s: a new session does not see the Notes made in another: the server must keep its Notes where every session sees them (over stdio each session is a process of its own: e.g. notesbench serve --db FILE)", b.t.name)
		}
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	if b.t.offersPerson() {
		return &personSession{s}, nil
	}
	return s, nil
}

// Close closes the sessions of the run still open.
func (b *backend) Close() error {
	return closeAll(&b.mu, b.sessions, (*session).Close)
}

// exchange is the one way a run's call reaches the server: the request's
// note_id mapped to the server's (mapArgs), the call on c, and the result's
// note_id mapped back (unmapResult). Typed calls, raw calls (Caller) and the
// Note's set-up all go through it.
func (b *backend) exchange(ctx context.Context, c *conn, tool string, args json.RawMessage) (json.RawMessage, bool, error) {
	body, isErr, err := c.callJSON(ctx, tool, b.mapArgs(args))
	if err != nil {
		return nil, false, err
	}
	return b.unmapResult(body), isErr, nil
}

// mapArgs maps the note_id of a request to the server's. An empty note_id is
// sent as it is, for the server to refuse.
func (b *backend) mapArgs(args json.RawMessage) json.RawMessage {
	return rewrite(args, b.server, false)
}

// unmapResult maps the note_id of a result (and the id of a not_found about a
// note_id, and that id where the message names it) back to the run's.
func (b *backend) unmapResult(body json.RawMessage) json.RawMessage {
	return rewrite(body, b.client, true)
}

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
