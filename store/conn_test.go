package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
)

// holdWrite starts a write on c that stops before its commit, holding the
// write lock, until the returned release is called; wait returns the write's
// result. It sets the store's beforeCommit hook, which holds the first write
// that reaches it and lets every later one through.
func holdWrite(t *testing.T, s *Store, c *Conn, v contract.Version) (release func(), wait func() (contract.EditResult, error)) {
	t.Helper()
	inside, proceed := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	s.beforeCommit = func() error {
		if held.CompareAndSwap(false, true) {
			close(inside)
			<-proceed
		}
		return nil
	}
	var res contract.EditResult
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = replaceText(c, v, "held")
	}()
	<-inside
	var once sync.Once
	release = func() { once.Do(func() { close(proceed) }) }
	t.Cleanup(func() { release(); <-done })
	return release, func() (contract.EditResult, error) {
		release()
		<-done
		return res, err
	}
}

// A Conn runs without SQLite's connection mutex: using it from a second
// goroutine while a call runs panics before it touches SQLite.
func TestConnUsedByTwoGoroutinesPanics(t *testing.T) {
	s, c := openTest(t, Options{})
	_, wait := holdWrite(t, s, c, "1")
	func() {
		defer func() {
			if p := recover(); p != errConcurrentUse {
				t.Fatalf("recovered %v, want %v", p, errConcurrentUse)
			}
		}()
		_, _ = c.ReadNoteTab(ctx, note, "markdown")
		t.Fatal("no panic")
	}()
	if r, err := wait(); err != nil || r.Version != "2" {
		t.Fatalf("the first call: %+v %v", r, err)
	}
	// One call after another from different goroutines is fine.
	done := make(chan error)
	go func() {
		_, err := replaceText(c, "2", "from another goroutine")
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, c, "markdown").Text; got != "from another goroutine" {
		t.Fatalf("text %q", got)
	}
}

func TestClosedConn(t *testing.T) {
	s, _ := openTest(t, Options{})
	c := mustConn(t, s)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := c.ReadNoteTab(ctx, note, "markdown"); !errors.Is(err, errClosed) {
		t.Fatalf("read after close: %v", err)
	}
	// The connection went back to the store and serves the next Conn.
	if got := mustRead(t, mustConn(t, s), "markdown"); got.Version != "1" {
		t.Fatalf("next conn reads %+v", got)
	}
}

// waitQueued waits until n writers wait in the store's write queue; it fails
// the test if they are not there within a long while (they would be waiting
// elsewhere, in SQLite's busy handler).
func waitQueued(t *testing.T, s *Store, n int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.queue.waiting.Load() != n; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("%d writers wait in the write queue, want %d", s.queue.waiting.Load(), n)
		}
	}
}

// With QueueWrites, writers that find the write lock taken wait for it in Go,
// not in SQLite's busy handler, and each commits once the writer before it is
// done.
func TestQueueWritesWaitInGo(t *testing.T) {
	s, holder := openTest(t, Options{Guard: contract.GuardNone, QueueWrites: true})
	_, wait := holdWrite(t, s, holder, "1")
	const writers = 5
	versions := make([]contract.Version, writers)
	var wg sync.WaitGroup
	for i := range writers {
		c := mustConn(t, s)
		wg.Go(func() {
			r, err := replaceText(c, "1", fmt.Sprintf("writer %d", i))
			if err != nil {
				t.Error(err)
			}
			versions[i] = r.Version
		})
	}
	waitQueued(t, s, writers)
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	slices.Sort(versions)
	if want := []contract.Version{"3", "4", "5", "6", "7"}; !slices.Equal(versions, want) {
		t.Fatalf("versions %v, want %v", versions, want)
	}
}

// queueInOrder makes each write from a Conn of its own, once the one before
// waits in the store's queue, so that they queue in this order (behind a held
// write), and returns a wait for their results.
func queueInOrder(t *testing.T, s *Store, reqs ...contract.EditRequest) (results func() ([]contract.EditResult, []error)) {
	t.Helper()
	res := make([]contract.EditResult, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		c := mustConn(t, s)
		wg.Go(func() { res[i], errs[i] = c.EditNoteTab(ctx, r) })
		waitQueued(t, s, int64(i+1))
	}
	return func() ([]contract.EditResult, []error) {
		wg.Wait()
		return res, errs
	}
}

// Writes that wait while another runs are committed with it, as one group,
// each within a savepoint of its own: a write that fails is undone alone, and
// each sees those before it as committed.
func TestQueueWritesCommitInGroups(t *testing.T) {
	s, holder := openTest(t, Options{Guard: contract.GuardNote, QueueWrites: true})
	_, wait := holdWrite(t, s, holder, "1") // the held write commits version 2
	groups := s.queue.groups.Load()
	results := queueInOrder(t, s, editReq("2", "second"), editReq("2", "stale"), editReq("3", "third"))
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	res, errs := results()
	var conflict *contract.ConflictError
	switch {
	case errs[0] != nil || res[0].Version != "3":
		t.Errorf("second write: %+v %v", res[0], errs[0])
	case !errors.As(errs[1], &conflict) || conflict.Current != "3":
		t.Errorf("stale write: %+v %v", res[1], errs[1])
	case errs[2] != nil || res[2].Version != "4":
		t.Errorf("third write: %+v %v", res[2], errs[2])
	}
	if got := s.queue.groups.Load() - groups; got != 1 {
		t.Errorf("the four writes took %d commits, want 1", got)
	}
	if got := mustRead(t, holder, "markdown"); got.Text != "third" || got.Version != "4" {
		t.Errorf("after: %+v", got)
	}
}

// onSecondCommit makes the second commit from now on run second instead of
// the hook s has, which the others still run. The hook runs on the writer,
// one write at a time, and only for the writes queued from now on: a held
// write is inside the hook already.
func onSecondCommit(s *Store, second func() error) {
	hold, calls := s.beforeCommit, 0
	s.beforeCommit = func() error {
		if calls++; calls == 2 {
			return second()
		}
		return hold()
	}
}

// In a group, a write that fails after applying its change (here in the
// commit hook) is rolled back to its savepoint; the writes around it commit.
func TestQueueWritesGroupRollsBackOneWrite(t *testing.T) {
	s, holder := openTest(t, Options{Guard: contract.GuardNone, QueueWrites: true})
	_, wait := holdWrite(t, s, holder, "1")
	boom := errors.New("boom")
	onSecondCommit(s, func() error { return boom })
	results := queueInOrder(t, s, editReq("1", "a"), editReq("1", "b"), editReq("1", "c"))
	groups := s.queue.groups.Load()
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	res, errs := results()
	versions := []contract.Version{res[0].Version, res[1].Version, res[2].Version}
	if errs[0] != nil || versions[0] != "3" || !errors.Is(errs[1], boom) || errs[2] != nil || versions[2] != "4" {
		t.Errorf("versions %v, errors %v", versions, errs)
	}
	if got := s.queue.groups.Load() - groups; got != 1 {
		t.Errorf("the four writes took %d commits, want 1", got)
	}
	if got := mustRead(t, holder, "markdown"); got.Text != "c" || got.Version != "4" {
		t.Errorf("after: %+v", got)
	}
}

// A group whose transaction is lost keeps none of its writes, so none of
// them reports what it found: here SQLite rolls the whole transaction back
// inside the last write (as it does on SQLITE_FULL or SQLITE_IOERR), after a
// write that replayed a key an earlier write of the group stored. Before, the
// replay reported a version nobody kept.
func TestQueueWritesFailedGroupKeepsNothing(t *testing.T) {
	s, holder := openTest(t, Options{Guard: contract.GuardNone, QueueWrites: true})
	_, wait := holdWrite(t, s, holder, "1")
	// Of the queued writes, those that apply a change reach the hook (a
	// replay does not): the second is the last write of the group.
	full := errors.New("disk full")
	onSecondCommit(s, func() error {
		if err := s.queue.sc.execHot(hotRollback); err != nil {
			return err
		}
		return full
	})
	req := editReq("2", "lost")
	req.IdempotencyKey = "same-key"
	other := req
	other.IdempotencyKey = "other"
	results := queueInOrder(t, s, req, req, other)
	_, held := wait()
	_, errs := results()
	for i, err := range append([]error{held}, errs...) {
		if err == nil || !strings.Contains(err.Error(), "commit: ") || !strings.Contains(err.Error(), full.Error()) {
			t.Errorf("write %d of the lost group: %v, want a commit error naming the cause", i+1, err)
		}
		if contract.IsOutcome(err) || errors.Is(err, errReplay) {
			t.Errorf("write %d of the lost group reports an outcome: %v", i+1, err)
		}
	}
	if got := mustRead(t, holder, "markdown"); got.Text != "" || got.Version != "1" {
		t.Errorf("the lost group left %+v", got)
	}
	s.beforeCommit = nil
	if r, err := replaceText(holder, "1", "after"); err != nil || r.Version != "2" {
		t.Errorf("the next write: %+v %v", r, err)
	}
}

// A queued write whose context ends while it waits writes nothing: it gives
// its turn up when it comes.
func TestQueueWritesGiveUpWithTheirContext(t *testing.T) {
	s, holder := openTest(t, Options{QueueWrites: true})
	_, wait := holdWrite(t, s, holder, "1")
	c := mustConn(t, s)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := c.EditNoteTab(cctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: "1",
			IdempotencyKey: "queued", Operation: contract.OpReplaceText, Text: "queued"})
		done <- err
	}()
	waitQueued(t, s, 1)
	cancel()
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if got := mustRead(t, c, "markdown"); got.Text != "held" || got.Version != "2" {
		t.Fatalf("after: %+v", got)
	}
}

// Many writers through one store with QueueWrites: every write commits, none
// fails with SQLITE_BUSY, on a file and in memory.
func TestQueueWritesManyWriters(t *testing.T) {
	for _, mem := range []bool{false, true} {
		t.Run(fmt.Sprintf("memory=%v", mem), func(t *testing.T) {
			path := InMemory
			if !mem {
				path = t.TempDir() + "/q.db"
			}
			s, err := Open(path, Options{QueueWrites: true, Clock: contracttest.NewClock()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			const writers, writes = 8, 50
			var wg sync.WaitGroup
			for w := range writers {
				id := fmt.Sprintf("note-%d", w)
				if err := s.CreateNote(ctx, id); err != nil {
					t.Fatal(err)
				}
				c := mustConn(t, s)
				wg.Go(func() {
					v := contract.Version("1")
					for i := range writes {
						r, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: id, TabID: "markdown", ExpectedVersion: v,
							IdempotencyKey: fmt.Sprint(i), Operation: contract.OpReplaceText, Text: fmt.Sprint(i)})
						if err != nil {
							t.Errorf("writer %d write %d: %v", w, i, err)
							return
						}
						v = r.Version
					}
					if v != contract.Version(fmt.Sprint(writes+1)) {
						t.Errorf("writer %d ends at version %s", w, v)
					}
				})
			}
			wg.Wait()
		})
	}
}

// An in-memory store closed with every Conn closed hands its database on,
// emptied, to the next in-memory store; one closed with a Conn still open
// does not. (Synchronous full keeps these stores apart from other tests'.)
func TestInMemoryDatabaseIsRecycledEmpty(t *testing.T) {
	opts := Options{Synchronous: contract.SyncFull, Clock: contracttest.NewClock()}
	a, err := Open(InMemory, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	c, err := a.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replaceText(c, "1", "from a"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	b, err := Open(InMemory, opts)
	if err != nil {
		t.Fatal(err)
	}
	if b.uri != a.uri {
		t.Fatalf("b opened %s, not a's database %s", b.uri, a.uri)
	}
	if err := b.CreateNote(ctx, note); err != nil {
		t.Fatalf("the recycled database is not empty: %v", err)
	}
	kept, err := b.Conn(ctx) // left open: b's database is not recycled
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, kept, "markdown"); got.Text != "" || got.Version != "1" {
		t.Fatalf("the recycled database reads %+v", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Open(InMemory, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.uri == b.uri {
		t.Fatal("a database with a Conn still open went to the next store")
	}
	if got := mustRead(t, kept, "markdown"); got.Text != "" {
		t.Fatalf("the open Conn reads %+v", got)
	}
	kept.Close()
}

// A file store that queues its writes checkpoints its WAL itself, every
// checkpointEvery writes, on its checkpointer.
func TestQueueWritesCheckpointOutsideTheQueue(t *testing.T) {
	s, c := openTest(t, Options{QueueWrites: true})
	v := contract.Version("1")
	write := func(n int) {
		t.Helper()
		for range n {
			r, err := replaceText(c, v, "text")
			if err != nil {
				t.Fatal(err)
			}
			v = r.Version
		}
	}
	const writes = 2*checkpointEvery + 50
	write(2*checkpointEvery - 1) // CreateNote was the first write
	// The checkpoints run beside the writes: wait for the second.
	for deadline := time.Now().Add(30 * time.Second); s.ckpt.runs.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d checkpoints after %d writes, want 2", s.ckpt.runs.Load(), 2*checkpointEvery)
		}
	}
	write(50)
	if got := s.ckpt.runs.Load(); got != 2 {
		t.Fatalf("%d checkpoints after %d writes, want 2", got, writes)
	}
	// The WAL restarted after the second checkpoint: it holds the frames of the
	// last 50 writes, not of all of them, as it would with no checkpoint at all.
	var busy, frames, copied int64
	err := c.inReadTx(ctx, func() error { return nil }) // no transaction may be open
	if err != nil {
		t.Fatal(err)
	}
	st, err := prepare(c.sc.db, "PRAGMA wal_checkpoint(PASSIVE)")
	if err != nil {
		t.Fatal(err)
	}
	if err := (&row{rows: rows{st: st}}).Scan(&busy, &frames, &copied); err != nil {
		t.Fatal(err)
	}
	if frames <= 0 || frames >= writes {
		t.Fatalf("the WAL holds %d frames after %d writes", frames, writes)
	}
}

// BenchmarkQueuedWrites is one write per op from several sessions at once,
// each on a Conn of its own, through the write queue of a file store: the
// hand-off to the writer and the group commits, as `serve` runs them.
func BenchmarkQueuedWrites(b *testing.B) {
	s, _ := openTest(b, Options{Guard: contract.GuardNone, QueueWrites: true})
	var n atomic.Int64
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c, err := s.Conn(ctx)
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		for pb.Next() {
			req := contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: "1",
				IdempotencyKey: fmt.Sprintf("q-%d", n.Add(1)), Operation: contract.OpReplaceText, Text: "x"}
			if _, err := c.EditNoteTab(ctx, req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// A write that waits for the queue when the store closes is refused, not
// committed: Close waits for the group being committed alone.
func TestQueueWritesWaitingAtCloseAreRefused(t *testing.T) {
	s, holder := openTest(t, Options{Guard: contract.GuardNote, QueueWrites: true})
	_, wait := holdWrite(t, s, holder, "1")
	results := queueInOrder(t, s, editReq("2", "second"), editReq("2", "third"))
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	for {
		s.queue.mu.Lock()
		stopping := s.queue.closed
		s.queue.mu.Unlock()
		if stopping {
			break
		}
		runtime.Gosched()
	}
	if res, err := wait(); err != nil || res.Version != "2" {
		t.Fatalf("the held write, committed as Close began: %+v %v", res, err)
	}
	res, errs := results()
	for i, err := range errs {
		if !errors.Is(err, errStoreClosed) {
			t.Errorf("write %d waiting at Close: %+v %v, want it refused", i+1, res[i], err)
		}
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}

// Under a load that never lets the queue drain, its array holds the waiting
// writes, not every write taken since it was last empty.
func TestQueueStaysBoundedWhileItNeverDrains(t *testing.T) {
	q := &writeQueue{}
	const live = 40
	for range live {
		if err := q.push(&job{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100_000 {
		if q.take() == nil {
			t.Fatalf("write %d: the queue is empty, want %d waiting", i, live-1)
		}
		if err := q.push(&job{}); err != nil {
			t.Fatal(err)
		}
		if got := q.waiting.Load(); got != live {
			t.Fatalf("write %d: %d waiting, want %d", i, got, live)
		}
	}
	if c := cap(q.pending); c > 4*live {
		t.Errorf("an array of %d for %d waiting writes", c, live)
	}
}
