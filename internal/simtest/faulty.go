package simtest

import (
	"context"
	"errors"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// CallFault says what a faulty session of the run called run does with its n-th
// call (from 1) of tool: nothing (nil), or fail the call with err, before
// the call reaches the store or (after) once the store applied it.
type CallFault func(run string, session, n int, tool string) (err error, after bool)

// FaultyTarget wraps a target so that every session it opens (numbered
// from 0 in the order a run opens them) fails calls as f says, and counts
// the faults that reached the caller, per run and session.
type FaultyTarget struct {
	contract.Target
	f CallFault

	mu       sync.Mutex
	injected map[string]map[int]int
}

// NewFaulty wraps MemTarget as f says.
func NewFaulty(f CallFault) *FaultyTarget {
	return &FaultyTarget{Target: MemTarget, f: f, injected: map[string]map[int]int{}}
}

// Count returns the faults that reached session of run.
func (t *FaultyTarget) Count(run string, session int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.injected[run][session]
}

func (t *FaultyTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.Target.Open(ctx, run)
	if err != nil {
		return nil, err
	}
	return &faultyBackend{Backend: b, t: t, run: run.Name}, nil
}

type faultyBackend struct {
	contract.Backend
	t        *FaultyTarget
	run      string
	mu       sync.Mutex
	sessions int
}

func (b *faultyBackend) Session(ctx context.Context) (contract.Session, error) {
	s, err := b.Backend.Session(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sessions++
	return &faultySession{Session: s, b: b, id: b.sessions - 1, calls: map[string]int{}}, nil
}

type faultySession struct {
	contract.Session
	b     *faultyBackend
	id    int
	calls map[string]int
}

// around makes one call of tool through do, failing it as the fault says.
func (s *faultySession) around(tool string, do func() error) error {
	s.calls[tool]++
	t := s.b.t
	err, after := t.f(s.b.run, s.id, s.calls[tool], tool)
	if err == nil {
		return do()
	}
	if after {
		if derr := do(); derr != nil {
			return derr
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.injected[s.b.run] == nil {
		t.injected[s.b.run] = map[int]int{}
	}
	t.injected[s.b.run][s.id]++
	return err
}

func (s *faultySession) ReadNoteTab(ctx context.Context, noteID, tabID string) (out contract.TabContent, err error) {
	err = s.around(contract.ToolReadNoteTab, func() error {
		out, err = s.Session.ReadNoteTab(ctx, noteID, tabID)
		return err
	})
	return out, err
}

func (s *faultySession) EditNoteTab(ctx context.Context, req contract.EditRequest) (out contract.EditResult, err error) {
	err = s.around(contract.ToolEditNoteTab, func() error {
		out, err = s.Session.EditNoteTab(ctx, req)
		return err
	})
	return out, err
}

func (s *faultySession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (out contract.CreateResult, err error) {
	err = s.around(contract.ToolCreateNoteTab, func() error {
		out, err = s.Session.CreateNoteTab(ctx, req)
		return err
	})
	return out, err
}

func (s *faultySession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (out contract.SourceResult, err error) {
	err = s.around(contract.ToolAddNoteSource, func() error {
		out, err = s.Session.AddNoteSource(ctx, req)
		return err
	})
	return out, err
}

func (s *faultySession) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (out contract.AttachmentPage, err error) {
	err = s.around(contract.ToolListNoteAttachments, func() error {
		out, err = s.Session.ListNoteAttachments(ctx, req)
		return err
	})
	return out, err
}

// ErrTimeout is a call that timed out: whether it happened nobody knows.
var ErrTimeout = contract.Indeterminate(contract.KindTimeout, errors.New("the call timed out"))

// ErrRefused is a write the server turned down: it did not happen.
var ErrRefused = &contract.RefusedError{Tool: "edit_note_tab", Reply: `"task_not_found"`}
