package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// The contract's own tools, for a Target given no profile: every typed call
// is sent as the contract defines it, with the document as note_id, through
// the one path of every call (session.send).

// passthrough makes the contract's own call of tool with req, a typed
// request whose note_id is the run's Note noteID, sent as the document's;
// the result's note_id comes back as the run's, and its errors are the
// contract's outcomes.
func passthrough[T any](ctx context.Context, s *session, tool string, req any, noteID string) (T, error) {
	var out T
	if _, ok := s.b.document(noteID); !ok && noteID != "" {
		return out, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	args, err := json.Marshal(req)
	if err != nil {
		return out, err
	}
	kind := reading
	switch tool {
	case contract.ToolEditNoteTab, contract.ToolCreateNoteTab, contract.ToolAddNoteSource:
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
func (s *session) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	if !s.contract() {
		return nil, fmt.Errorf("target %s: profile %s: a raw call needs a server of the contract", s.b.t.name, s.prof().Name)
	}
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
type personSession struct{ *session }

func (p *personSession) MoveTab(ctx context.Context, noteID, tabID string, pos int) error {
	_, err := passthrough[json.RawMessage](ctx, p.session, ext.ToolMoveTab, ext.MoveTabRequest{NoteID: noteID, TabID: tabID, Position: pos}, noteID)
	return err
}

func (p *personSession) RenameTab(ctx context.Context, noteID, tabID, label string) error {
	_, err := passthrough[json.RawMessage](ctx, p.session, ext.ToolRenameTab, ext.RenameTabRequest{NoteID: noteID, TabID: tabID, Label: label}, noteID)
	return err
}

func (p *personSession) AddTab(ctx context.Context, noteID string, typ contract.TabType, label string) (contract.TabInfo, error) {
	return passthrough[contract.TabInfo](ctx, p.session, ext.ToolAddTab, ext.AddTabRequest{NoteID: noteID, TabType: typ, Label: label}, noteID)
}

func (p *personSession) SetCells(ctx context.Context, noteID, tabID, sheetID string, row, col int, values [][]any) error {
	_, err := passthrough[json.RawMessage](ctx, p.session, ext.ToolSetCells, ext.SetCellsRequest{NoteID: noteID, TabID: tabID, SheetID: sheetID,
		StartRow: row, StartCol: col, Values: values}, noteID)
	return err
}

func (p *personSession) SetText(ctx context.Context, noteID, text string) error {
	_, err := passthrough[json.RawMessage](ctx, p.session, ext.ToolSetText, ext.SetTextRequest{NoteID: noteID, Text: text}, noteID)
	return err
}

var (
	_ contract.Person = (*personSession)(nil)
	_ Caller          = (*session)(nil)
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
