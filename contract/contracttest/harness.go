// Package contracttest is the test suite every implementation of the contract
// runs: the same clauses, checked through the seam alone (the tools, the JSON
// layer and the person's actions), so that implementations cannot drift apart.
//
// An implementation's test calls Run with a function that opens a fresh Backend
// for a RunSpec, and with what it supports:
//
//	func TestContract(t *testing.T) {
//		contracttest.Run(t, contracttest.Config{Open: func(t testing.TB, run contract.RunSpec) contract.Backend { … }})
//	}
package contracttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// Config says how to open an implementation and what it supports.
type Config struct {
	// Open opens a fresh, empty Backend for run; the suite closes it. Open
	// fails the test (t.Fatal) when it cannot.
	Open func(t testing.TB, run contract.RunSpec) contract.Backend
	// FixedClock says the implementation takes its time from run.Clock, so the
	// suite can make two commits share a millisecond and check tab IDs.
	FixedClock bool
	// Variants lists the variants the implementation can serve; nil means every
	// one. A test of a variant it lacks is skipped.
	Variants []contract.Variant
	// Light runs the concurrent re-apply clause with 4 editors of 25 edits
	// instead of 8 of 100, for an implementation whose every call is a round
	// trip (an MCP client), or in a -short run or under the race detector: the clause is the same, its
	// cost grows with the square of the editors.
	Light bool
}

// SettableClock is a clock for the tests that need commits at chosen times.
type SettableClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at a fixed instant.
func NewClock() *SettableClock {
	return &SettableClock{now: time.Date(2026, 11, 6, 9, 0, 0, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *SettableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *SettableClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// note is the Note every test writes to.
const note = "note-1"

var ctx = context.Background()

// harness is one test's backend, its first session and its clock.
type harness struct {
	t     testing.TB
	cfg   Config
	b     contract.Backend
	c     contract.Session
	clock *SettableClock
	keys  int
}

// open opens a backend of variant v with one Note and a session, or skips the
// test when the implementation does not serve v.
func (cfg Config) open(t testing.TB, v contract.Variant, seed uint64) *harness {
	t.Helper()
	if !cfg.serves(v) {
		t.Skipf("the implementation does not serve %s", v)
	}
	h := &harness{t: t, cfg: cfg, clock: NewClock()}
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	h.b = cfg.Open(t, contract.RunSpec{Name: name, Variant: v.WithDefaults(), Clock: h.clock, Seed: seed})
	t.Cleanup(func() {
		if err := h.b.Close(); err != nil {
			t.Errorf("closing the backend: %v", err)
		}
	})
	if err := h.b.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	h.c = h.session()
	return h
}

func (cfg Config) serves(v contract.Variant) bool {
	if cfg.Variants == nil {
		return true
	}
	v = v.WithDefaults()
	for _, s := range cfg.Variants {
		if s.WithDefaults() == v {
			return true
		}
	}
	return false
}

// needClock skips a test that sets the time of commits.
func (h *harness) needClock() {
	if !h.cfg.FixedClock {
		h.t.Skip("the implementation keeps its own clock")
	}
}

// session opens another session, closed at the end of the test.
func (h *harness) session() contract.Session {
	h.t.Helper()
	s, err := h.b.Session(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { s.Close() })
	return s
}

// person returns a session's person actions, or skips the test.
func (h *harness) person(s contract.Session) contract.Person {
	p, ok := s.(contract.Person)
	if !ok {
		h.t.Skip("the implementation offers no person actions")
	}
	return p
}

func (h *harness) key() string {
	h.keys++
	return fmt.Sprintf("key-%d", h.keys)
}

func (h *harness) list(s contract.Session) contract.TabList {
	h.t.Helper()
	l, err := s.ListNoteTabs(ctx, note)
	if err != nil {
		h.t.Fatal(err)
	}
	return l
}

func (h *harness) read(s contract.Session, tab string) contract.TabContent {
	h.t.Helper()
	r, err := s.ReadNoteTab(ctx, note, tab)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func (h *harness) replaceText(s contract.Session, v contract.Version, text string) (contract.EditResult, error) {
	return s.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: v,
		IdempotencyKey: h.key(), Operation: contract.OpReplaceText, Text: text})
}

func (h *harness) create(s contract.Session, typ contract.TabType, label string) contract.CreateResult {
	h.t.Helper()
	r, err := s.CreateNoteTab(ctx, contract.CreateRequest{NoteID: note, ExpectedVersion: h.list(s).Version,
		IdempotencyKey: h.key(), TabType: typ, Label: label})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// call makes a call through the JSON layer and returns the result object.
func (h *harness) call(s contract.Session, tool, args string) map[string]any {
	h.t.Helper()
	raw, err := contract.Call(ctx, s, tool, json.RawMessage(args))
	if err != nil {
		h.t.Fatalf("%s %s: %v", tool, args, err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		h.t.Fatalf("result %s: %v", raw, err)
	}
	return out
}

// snapshot is everything the tools show of the Note: the listing and every
// tab's content, with every attachment. Two equal snapshots mean nothing a
// client can see has changed.
func (h *harness) snapshot(s contract.Session) string {
	h.t.Helper()
	var b strings.Builder
	l := h.list(s)
	fmt.Fprintf(&b, "version %s\n", l.Version)
	for _, tab := range l.Tabs {
		c := h.read(s, tab.TabID)
		j, err := json.Marshal(c)
		if err != nil {
			h.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%+v %s\n", tab, j)
	}
	return b.String()
}

func isConflict(err error) bool {
	var ce *contract.ConflictError
	return errors.As(err, &ce)
}
