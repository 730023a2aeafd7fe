package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// link is the parent's way to the store: the current child, replaced on every
// restart. A call made while no child is up fails with errNoChild at once,
// unsent.
type link struct {
	mu    sync.Mutex
	proc  *process
	epoch int           // children started so far
	up    chan struct{} // closed when the next child is ready
}

func newLink() *link { return &link{up: make(chan struct{})} }

// current returns the live child, or nil.
func (l *link) current() *process {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.proc
}

// set installs a new child (nil: none) and wakes those waiting for one.
func (l *link) set(p *process) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.proc = p
	if p != nil {
		l.epoch++
		close(l.up)
		l.up = make(chan struct{})
	}
}

// now returns the epoch: which child a call made now goes to.
func (l *link) now() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// await waits until a child started after epoch is up, and reports false when
// stop closes first.
func (l *link) await(epoch int, stop <-chan struct{}) bool {
	for {
		l.mu.Lock()
		if l.epoch > epoch && l.proc != nil {
			l.mu.Unlock()
			return true
		}
		up := l.up
		l.mu.Unlock()
		select {
		case <-up:
		case <-stop:
			return false
		}
	}
}

func (l *link) call(ctx context.Context, session int, tool string, args any) (json.RawMessage, error) {
	p := l.current()
	if p == nil {
		return nil, errNoChild
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return p.call(ctx, request{Session: session, Tool: tool, Args: b})
}

// remote is a contract.Session served by the child, through the contract's
// JSON layer: typed arguments go out as JSON, result objects come back and
// contract outcomes turn back into typed errors (contract.ErrorOf). A session
// outlives restarts: the next child opens a connection for it on its first call.
type remote struct {
	l  *link
	id int
}

var _ contract.Session = (*remote)(nil)

// do makes one call and decodes its result into out.
func do[T any](ctx context.Context, r *remote, tool string, args any) (T, error) {
	var out T
	res, err := r.l.call(ctx, r.id, tool, args)
	if err != nil {
		return out, err
	}
	if err := contract.ErrorOf(res); err != nil {
		return out, err
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return out, fmt.Errorf("%s: decoding the result: %w", tool, err)
	}
	return out, nil
}

func (r *remote) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	return do[contract.TabList](ctx, r, contract.ToolListNoteTabs, map[string]string{"note_id": noteID})
}

func (r *remote) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	return do[contract.TabContent](ctx, r, contract.ToolReadNoteTab, map[string]string{"note_id": noteID, "tab_id": tabID})
}

func (r *remote) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return do[contract.SheetRange](ctx, r, contract.ToolReadSheetRange, req)
}

func (r *remote) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	return do[contract.AttachmentPage](ctx, r, contract.ToolListNoteAttachments, req)
}

func (r *remote) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	return do[contract.EditResult](ctx, r, contract.ToolEditNoteTab, req)
}

func (r *remote) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	return do[contract.CreateResult](ctx, r, contract.ToolCreateNoteTab, req)
}

func (r *remote) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	return do[contract.SourceResult](ctx, r, contract.ToolAddNoteSource, req)
}

// Close does nothing: the child closes its connections when it exits.
func (r *remote) Close() error { return nil }
