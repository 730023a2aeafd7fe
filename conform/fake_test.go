package conform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/store"
)

// fake is a target over the embedded store shaped as a test needs: the
// capabilities it lacks, sessions that trace their calls as a profile's do,
// versions that are digests of the content, and a server's write that may
// refuse, fail or answer otherwise than the store. As it is, it is held to
// the contract's own tools; profiled wraps it in a profile's Mapping.
type fake struct {
	guard contract.Guard
	lacks []contract.Capability
	trace bool
	// digests makes the versions the SHA-256 of the content, as a server
	// without versions has them through a profile.
	digests bool
	// read, when set, may fail a read of the store's that found t.
	read func(t contract.TabContent) error
	// edit is the server's write: it calls write for the store's, or not.
	edit func(req contract.EditRequest, write func(contract.EditRequest) (contract.EditResult, error)) (contract.EditResult, error)
}

// profiled is a fake reached through a profile.
type profiled struct {
	*fake
	mapping contract.Mapping
}

func (p *profiled) Mapping() contract.Mapping { return p.mapping }

func (f *fake) Describe() string { return "a fake over the embedded store" }
func (f *fake) Close() error     { return nil }

func (f *fake) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	st, err := store.Open(store.InMemory, store.Options{Guard: f.guard})
	if err != nil {
		return nil, err
	}
	return &fakeBackend{Store: st, f: f}, nil
}

// Require is a profile's: what it lacks is unmapped.
func (f *fake) Require(why string, caps ...contract.Capability) error {
	for _, c := range caps {
		if slices.Contains(f.lacks, c) {
			return fmt.Errorf("profile fake maps no %s, which %s needs", c, why)
		}
	}
	return nil
}

type fakeBackend struct {
	*store.Store
	f *fake
}

func (b *fakeBackend) Session(ctx context.Context) (contract.Session, error) {
	s, err := b.Store.Session(ctx)
	if err != nil {
		return nil, err
	}
	fs := &fakeSession{Session: s, f: b.f}
	if b.f.trace {
		return &tracedSession{fs}, nil
	}
	return fs, nil
}

// fakeSession is a session of the fake: the store's, with the fake's write
// and versions.
type fakeSession struct {
	contract.Session
	f     *fake
	trace func(tool string, args json.RawMessage, reply string)
}

// tracedSession is a fakeSession that reports its calls, as a profile's
// sessions do (conform's tracer).
type tracedSession struct{ *fakeSession }

func (s *tracedSession) Trace(f func(tool string, args json.RawMessage, reply string)) { s.trace = f }

// traced reports a call as the server's own tool, "fake_" and the
// contract's.
func (s *fakeSession) traced(tool string, args any, res any, err error) {
	if s.trace == nil {
		return
	}
	a, _ := json.Marshal(args)
	reply := ""
	if err != nil {
		reply = "isError: " + err.Error()
	} else {
		b, _ := json.Marshal(res)
		reply = string(b)
	}
	s.trace("fake_"+tool, a, reply)
}

func digest(text string) contract.Version {
	sum := sha256.Sum256([]byte(text))
	return contract.Version("sha256:" + hex.EncodeToString(sum[:8]))
}

func (s *fakeSession) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	t, err := s.Session.ReadNoteTab(ctx, noteID, tabID)
	if err == nil && s.f.read != nil {
		if err = s.f.read(t); err != nil {
			t = contract.TabContent{}
		}
	}
	if err == nil && s.f.digests {
		t.Version = digest(t.Text)
	}
	s.traced(contract.ToolReadNoteTab, map[string]string{"note_id": noteID, "tab_id": tabID}, t, err)
	return t, err
}

func (s *fakeSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	write := func(req contract.EditRequest) (contract.EditResult, error) {
		if !s.f.digests {
			return s.Session.EditNoteTab(ctx, req)
		}
		// A server without versions: the store, unguarded, gets its own
		// current version, and the write's is the digest of its text.
		cur, err := s.Session.ReadNoteTab(ctx, req.NoteID, req.TabID)
		if err != nil {
			return contract.EditResult{}, err
		}
		req.ExpectedVersion = cur.Version
		res, err := s.Session.EditNoteTab(ctx, req)
		res.Version = digest(req.Text)
		return res, err
	}
	var res contract.EditResult
	var err error
	if s.f.edit != nil {
		res, err = s.f.edit(req, write)
	} else {
		res, err = write(req)
	}
	s.traced(contract.ToolEditNoteTab, req, res, err)
	return res, err
}

func (s *fakeSession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	l, err := s.Session.ListNoteTabs(ctx, noteID)
	s.traced(contract.ToolListNoteTabs, map[string]string{"note_id": noteID}, l, err)
	return l, err
}

func (s *fakeSession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	res, err := s.Session.CreateNoteTab(ctx, req)
	s.traced(contract.ToolCreateNoteTab, req, res, err)
	return res, err
}

func (s *fakeSession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	res, err := s.Session.AddNoteSource(ctx, req)
	s.traced(contract.ToolAddNoteSource, req, res, err)
	return res, err
}
