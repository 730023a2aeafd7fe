package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// A write to the Sheet tab makes a stale markdown write conflict under the Note
// guard, not under the tab guard, and never under no guard.
func TestGuardScopes(t *testing.T) {
	for _, tc := range []struct {
		guard        contract.Guard
		wantConflict bool
	}{
		{contract.GuardNote, true},
		{contract.GuardTab, false},
		{contract.GuardNone, false},
	} {
		t.Run(string(tc.guard), func(t *testing.T) {
			_, c := openTest(t, Options{Guard: tc.guard})
			sheet := mustCreate(t, c, contract.TypeSheet, "S")
			text := mustRead(t, c, "markdown")
			cells := mustRead(t, c, sheet.TabID)
			if _, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: sheet.TabID, ExpectedVersion: cells.Version,
				IdempotencyKey: key(), Operation: contract.OpSheetSetRange, Values: [][]any{{"human-1"}}}); err != nil {
				t.Fatal(err)
			}
			_, err := replaceText(c, text.Version, "claude-1")
			if isConflict(err) != tc.wantConflict {
				t.Fatalf("markdown write after a sheet write: err %v, want conflict %v", err, tc.wantConflict)
			}
			if tc.wantConflict {
				var ce *contract.ConflictError
				errors.As(err, &ce)
				if ce.Current != mustRead(t, c, "markdown").Version {
					t.Fatalf("conflict reports %s", ce.Current)
				}
			}
		})
	}
}

// Under the tab guard a stale write to the same tab still conflicts, and Note-level
// writes use the Note version.
func TestTabGuardSameTab(t *testing.T) {
	_, c := openTest(t, Options{Guard: contract.GuardTab})
	v := mustRead(t, c, "markdown").Version
	if _, err := replaceText(c, v, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := replaceText(c, v, "b"); !isConflict(err) {
		t.Fatalf("stale write to the same tab: %v", err)
	}
	// The text writes did not move the Note version: a create with it lands.
	if l := mustList(t, c); l.Version != "1" {
		t.Fatalf("note version %s after tab writes", l.Version)
	}
	mustCreate(t, c, contract.TypeSlides, "")
}

// Two commits in the same millisecond get the same ms version, so a writer that
// read before the first passes the check against the second: a lost update.
func TestMillisecondVersionsCollide(t *testing.T) {
	s, c := openTest(t, Options{VersionFormat: contract.FormatMS})
	clock := s.opts.Clock.(*fakeClock)
	clock.Advance(5 * time.Millisecond)
	base := mustRead(t, c, "markdown")
	a, err := replaceText(c, base.Version, "first")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(300 * time.Microsecond) // same millisecond
	stale := mustRead(t, c, "markdown")   // reads version a
	b, err := replaceText(c, a.Version, "second")
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != b.Version {
		t.Fatalf("versions %s and %s differ within one millisecond", a.Version, b.Version)
	}
	// A writer that read after the first commit still passes: "second" is lost.
	if _, err := replaceText(c, stale.Version, stale.Text+"\nthird"); err != nil {
		t.Fatalf("stale writer was rejected: %v", err)
	}
	if got := mustRead(t, c, "markdown").Text; strings.Contains(got, "second") {
		t.Fatalf("text %q still has the overwritten line", got)
	}
	if !strings.HasSuffix(string(a.Version), "Z") || len(a.Version) != len("2026-11-06T09:00:00.005Z") {
		t.Fatalf("ms version %q", a.Version)
	}
}

func TestMicrosecondSuffixVersionsDoNotCollide(t *testing.T) {
	_, c := openTest(t, Options{VersionFormat: contract.FormatUSSuffix, Seed: 3})
	v := mustRead(t, c, "markdown").Version
	seen := map[contract.Version]bool{v: true}
	for i := 0; i < 200; i++ { // the fake clock never moves: every commit shares one microsecond
		r, err := replaceText(c, v, fmt.Sprint(i))
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.Version] {
			t.Fatalf("version %s repeated after %d writes", r.Version, i)
		}
		seen[r.Version] = true
		if _, err := replaceText(c, v, "stale"); !isConflict(err) {
			t.Fatalf("stale write passed: %v", err)
		}
		v = r.Version
	}
}

func TestIdempotencyOrder(t *testing.T) {
	for _, tc := range []struct {
		order        contract.Order
		wantConflict bool
	}{
		{contract.OrderKeyFirst, false},
		{contract.OrderVersionFirst, true},
	} {
		t.Run(string(tc.order), func(t *testing.T) {
			s, c := openTest(t, Options{Order: tc.order})
			req := contract.CreateRequest{NoteID: note, ExpectedVersion: "1", IdempotencyKey: "deck", TabType: contract.TypeSlides}
			first, err := c.CreateNoteTab(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			before := dump(t, s)
			again, err := c.CreateNoteTab(ctx, req) // the resend carries the stale version 1
			if tc.wantConflict {
				if !isConflict(err) {
					t.Fatalf("version-first resend: %+v, %v; want a conflict", again, err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				want := first
				want.Replayed = true
				if again != want {
					t.Fatalf("replay %+v, want %+v", again, want)
				}
			}
			if dump(t, s) != before {
				t.Fatal("a resend changed the database")
			}
			// With the current version, version-first also replays the key.
			req.ExpectedVersion = first.Version
			if again, err := c.CreateNoteTab(ctx, req); err != nil || again.TabID != first.TabID || !again.Replayed {
				t.Fatalf("resend with current version: %+v %v", again, err)
			}
		})
	}
}

func TestKeyScopedPerNoteAndTool(t *testing.T) {
	s, c := openTest(t, Options{})
	if err := s.CreateNote(ctx, "note-2"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{note, "note-2"} {
		r, err := c.AddNoteSource(ctx, contract.SourceRequest{NoteID: n, ExpectedVersion: "1", IdempotencyKey: "same", Title: "t", URL: "https://a.example/x"})
		if err != nil || r.Replayed {
			t.Fatalf("%s: %+v %v", n, r, err)
		}
	}
	_, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: "2", IdempotencyKey: "same",
		Operation: contract.OpReplaceText, Text: "x"})
	var bad *contract.InvalidArgumentError
	if !errors.As(err, &bad) || bad.Field != "idempotency_key" {
		t.Fatalf("key reused by another tool: %v", err)
	}
}

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

// Eight editors, each on its own connection, append 200 lines each under the Note
// guard and re-apply on conflict: no line is lost and no write fails with BUSY.
func TestConcurrentReapplyLosesNothing(t *testing.T) {
	s, _ := openTest(t, Options{})
	const editors, edits = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, editors)
	for e := 0; e < editors; e++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- appendLines(s, e, edits)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	_, c := s, mustConn(t, s)
	text := mustRead(t, c, "markdown").Text
	lines := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		lines[l] = true
	}
	for e := 0; e < editors; e++ {
		for i := 0; i < edits; i++ {
			if l := fmt.Sprintf("e%d-%d", e, i); !lines[l] {
				t.Fatalf("line %s lost", l)
			}
		}
	}
	if v := mustRead(t, c, "markdown").Version; v != contract.Version(fmt.Sprint(1+editors*edits)) {
		t.Fatalf("version %s after %d writes", v, editors*edits)
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

func appendLines(s *Store, e, edits int) error {
	c, err := s.Conn(context.Background())
	if err != nil {
		return err
	}
	defer c.Close()
	for i := 0; i < edits; i++ {
		for try := 0; ; try++ {
			cur, err := c.ReadNoteTab(ctx, note, "markdown")
			if err != nil {
				return err
			}
			_, err = c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: cur.Version,
				IdempotencyKey: fmt.Sprintf("e%d-%d-%d", e, i, try), Operation: contract.OpReplaceText, Text: cur.Text + "\n" + fmt.Sprintf("e%d-%d", e, i)})
			if err == nil {
				break
			}
			if !isConflict(err) {
				return fmt.Errorf("editor %d edit %d: %w", e, i, err)
			}
		}
	}
	return nil
}

func TestInMemoryStoreSharesOneDatabase(t *testing.T) {
	s, err := Open(InMemory, Options{Clock: newFakeClock()})
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
