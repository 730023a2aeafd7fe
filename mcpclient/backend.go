package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/serve"
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

func (b *backend) server(id string) string {
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
	if t.Offers(serve.ToolCreateNote) {
		args, _ := json.Marshal(map[string]string{"note_id": b.server(noteID)})
		body, _, err := t.control.callJSON(ctx, serve.ToolCreateNote, args)
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
		return fmt.Errorf("target %s offers no %s: name an existing, fresh Note to run on", t.name, serve.ToolCreateNote)
	}
	t.mu.Lock()
	used := t.namedUsed
	t.namedUsed = true
	t.mu.Unlock()
	if used {
		return fmt.Errorf("target %s offers no %s, and the Note named (%s) serves one run only", t.name, serve.ToolCreateNote, t.opts.Note)
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
		_, err := s.ListNoteTabs(ctx, b.client(first))
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
	b.mu.Lock()
	var open []*session
	for s := range b.sessions {
		open = append(open, s)
	}
	b.mu.Unlock()
	var errs []error
	for _, s := range open {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// mapArgs maps the note_id of a request to the server's.
func (b *backend) mapArgs(args json.RawMessage) json.RawMessage {
	return b.rewrite(args, b.server, false)
}

// unmapResult maps the note_id of a result (and the id of a not_found about a
// note_id) back to the run's.
func (b *backend) unmapResult(body json.RawMessage) json.RawMessage {
	return b.rewrite(body, b.client, true)
}

func (b *backend) rewrite(obj json.RawMessage, mapID func(string) string, result bool) json.RawMessage {
	if !bytes.Contains(obj, []byte(`"note_id"`)) {
		return obj
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return obj // not an object: sent as it is, refused by the server
	}
	swap := func(key string) {
		var id string
		if raw, ok := m[key]; ok && json.Unmarshal(raw, &id) == nil {
			mapped := mapID(id)
			m[key], _ = json.Marshal(mapped)
			if msg, ok := m["message"]; result && ok {
				m["message"] = bytes.ReplaceAll(msg, []byte(id), []byte(mapped))
			}
		}
	}
	swap("note_id")
	if result {
		var field string
		if json.Unmarshal(m["field"], &field) == nil && field == "note_id" {
			swap("id")
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return out
}
