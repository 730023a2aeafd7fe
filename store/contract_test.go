package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
)

func TestFailureBeforeCommitWritesNothing(t *testing.T) {
	s, c := openTest(t, Options{})
	before := dump(t, s)
	boom := errors.New("injected failure")
	s.beforeCommit = func() error { return boom }
	req := contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "once", Operation: contract.OpReplaceText, Text: "x"}
	if _, err := c.EditNoteTab(ctx, req); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if _, err := c.CreateNoteTab(ctx, contract.CreateRequest{NoteID: note, ExpectedVersion: "1", IdempotencyKey: "c", TabType: contract.TypeSheet}); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if after := dump(t, s); after != before {
		t.Fatalf("a failed write left traces:\n%s", after)
	}
	// The key was not stored: the same call now lands as a first write.
	s.beforeCommit = nil
	r, err := c.EditNoteTab(ctx, req)
	if err != nil || r.Replayed || r.Version != "2" {
		t.Fatalf("after the failure: %+v %v", r, err)
	}
}

func mustConn(t *testing.T, s *Store) *Conn {
	c, err := s.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestInMemoryStoreSharesOneDatabase(t *testing.T) {
	s, err := Open(InMemory, Options{Clock: contracttest.NewClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	a, b := mustConn(t, s), mustConn(t, s)
	if _, err := replaceText(a, "1", "from a"); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, b, "markdown"); got.Text != "from a" {
		t.Fatalf("second connection reads %q", got.Text)
	}
	other, err := Open(InMemory, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.CreateNote(ctx, note); err != nil {
		t.Fatalf("a second in-memory store is not private: %v", err)
	}
}

func TestOpenRejectsBadOptions(t *testing.T) {
	_, err := Open(InMemory, Options{Guard: "sometimes"})
	if err == nil || err.Error() != `unknown guard "sometimes" (want none, note or tab)` {
		t.Fatalf("err %v", err)
	}
}

func BenchmarkEditNoteTab(b *testing.B) {
	text := strings.Repeat("x", 200)
	for _, g := range []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab} {
		b.Run("guard="+string(g), func(b *testing.B) {
			_, c := openTest(b, Options{Guard: g})
			v := mustRead(b, c, "markdown").Version
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: v,
					IdempotencyKey: fmt.Sprintf("b-%d", i), Operation: contract.OpReplaceText, Text: text})
				if err != nil {
					b.Fatal(err)
				}
				v = r.Version
			}
		})
	}
}

// BenchmarkMemoryRun is one run of the virtual race engine's store work, per
// op: a fresh in-memory store, a Note, two editors that each read the text
// tab and append a line 100 times, and a final read. It is what `race --clock
// virtual` repeats some 1,500 times, without the scheduler.
func BenchmarkMemoryRun(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := Open(InMemory, Options{Clock: contracttest.NewClock()})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.CreateNote(ctx, note); err != nil {
			b.Fatal(err)
		}
		editors := []*Conn{mustConnB(b, s), mustConnB(b, s)}
		for e := 0; e < 200; e++ {
			c := editors[e%2]
			tab := mustRead(b, c, "markdown")
			_, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: tab.Version,
				IdempotencyKey: fmt.Sprintf("k-%d", e), Operation: contract.OpReplaceText, Text: tab.Text + "\n" + fmt.Sprintf("line-%d", e)})
			if err != nil {
				b.Fatal(err)
			}
		}
		mustRead(b, editors[0], "markdown")
		for _, c := range editors {
			c.Close()
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func mustConnB(b *testing.B, s *Store) *Conn {
	c, err := s.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// A run of one server's sessions gets a store that queues its writes; other
// runs get SQLite's busy handler alone, unless the Target queues every run.
func TestTargetQueuesWritesOfOneServer(t *testing.T) {
	for _, tc := range []struct {
		target, oneServer, want bool
	}{{false, false, false}, {false, true, true}, {true, false, true}} {
		tg := &Target{InMemory: true, QueueWrites: tc.target}
		b, err := tg.Open(ctx, contract.RunSpec{Name: "q", OneServer: tc.oneServer})
		if err != nil {
			t.Fatal(err)
		}
		if got := b.(*Store).Options().QueueWrites; got != tc.want {
			t.Errorf("Target.QueueWrites %v, OneServer %v: QueueWrites %v", tc.target, tc.oneServer, got)
		}
		b.Close()
	}
}

// IntegrityCheck says ok for a sound database and names the problem of a
// damaged one.
func TestIntegrityCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := s.CreateNote(ctx, fmt.Sprintf("note-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := s.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.IntegrityCheck(ctx)
	c.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err != nil || got != "ok" {
		t.Fatalf("sound database: %q, %v", got, err)
	}
	// Scribble over the cell area of every page but the first (the header
	// and the schema): the tables' b-trees.
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	for page := int64(4096); page < st.Size() && err == nil; page += 4096 {
		_, err = f.WriteAt(bytes.Repeat([]byte{0xa5}, 2048), page+2048)
	}
	if cerr := f.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	s, err = Open(path, Options{})
	if err != nil {
		return // refused at once: damage found too
	}
	defer s.Close()
	c, err = s.Conn(ctx)
	if err != nil {
		return
	}
	defer c.Close()
	got, err = c.IntegrityCheck(ctx)
	if err == nil && got == "ok" {
		t.Fatal("a damaged database passed the integrity check")
	}
}
