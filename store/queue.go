package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"zombiezen.com/go/sqlite"
)

// writeQueue serves every write of a store that queues its writes
// (Options.QueueWrites): one server's sessions, which would otherwise contend
// for SQLite's write lock and wait in its busy handler, polling with pauses
// that grow to 100 ms. The queue runs the writes itself, one after another in
// arrival order, on a writer connection of its own, in a goroutine of its own
// (the writer), while each writer's goroutine waits for its result; a waiting
// write costs a hand-off in Go, not a sleep.
//
// The writer commits writes in groups: it begins a transaction with the
// first write that waits, runs it and then every write that arrived
// meanwhile (up to maxGroup) each within a savepoint of its own, and commits
// them together. A write that fails rolls back to its savepoint, and only it
// is undone; each write sees those before it as committed, as it would one
// transaction apiece, and its result is returned only once the group has
// committed. A group that fails to commit fails every write in it, and none
// of them is kept. So the writes are the same transactions in the same order
// as one at a time, with one COMMIT (and one write of the pages they share to
// the WAL) per group instead of per write.
//
// A write runs on the writer connection in place of its Conn's own: the
// writer puts its connection in the Conn for the write, while the Conn's
// goroutine waits, and takes it back after, so the writer connection belongs
// to the writer goroutine alone. Reads run on the Conns' own connections, beside
// the writes, and see every write whose result has been returned.
//
// Checkpoints move out of the writes. SQLite's automatic checkpoint runs
// inside the COMMIT that fills the WAL past 1,000 pages, copying it into the
// database file and syncing that, which takes milliseconds during which every
// queued write would wait. So a store that queues its writes turns the
// automatic checkpoint off (PRAGMA wal_autocheckpoint = 0) and, every
// checkpointEvery writes, asks its checkpointer, a goroutine with a
// connection of its own, for a passive checkpoint, which runs beside the
// writes.
type writeQueue struct {
	s  *Store
	sc *sqlConn // the writer connection
	// mu guards pending, head and closed. pending[head:] holds the writes that
	// wait for the writer, in arrival order: a write counted there is one the
	// writer takes, into the group it commits if there is room. wake (capacity
	// one) tells the writer that writes wait; closed refuses writes once the
	// store closes.
	mu      sync.Mutex
	pending []*job
	head    int
	closed  bool
	wake    chan struct{}
	stop    chan struct{}
	done    sync.WaitGroup
	// closeOnce makes close safe to call again: it returns the first result.
	closeOnce func() error
	// group holds the writes of the group being committed.
	group []*job
	// broken is set when a savepoint could not be begun, rolled back or
	// released: the group's transaction is rolled back whole. why is the
	// error of the write that broke it.
	broken bool
	why    error

	// commits counts committed writes, to pace the checkpoints.
	commits atomic.Uint64
	// waiting is the number of writes pending, and groups the groups committed
	// (for tests).
	waiting atomic.Int64
	groups  atomic.Int64
}

// maxGroup is the most writes one group commits: enough to take every
// session of a busy server at once, few enough that the first write of a
// group does not wait long for the last.
const maxGroup = 32

// checkpointEvery is how many writes pass between two checkpoints of a store
// that queues its writes: about SQLite's 1,000 WAL pages at the four pages an
// edit writes.
const checkpointEvery = 256

// job is one write handed to the writer. A Conn keeps one and reuses it: a
// Conn makes one call at a time.
type job struct {
	ctx context.Context
	c   *Conn
	fn  func() error
	err error
	// ran says the write ran in the group's transaction: its outcome stands
	// only if the group commits.
	ran  bool
	done chan struct{} // capacity one; the writer sends when the write is done
}

// errStoreClosed is what a write returns that reaches a closed store's queue.
var errStoreClosed = errors.New("store: the store is closed")

// startWriteQueue starts the writer of s on db, which it closes when stopped.
func startWriteQueue(s *Store, db *sqlite.Conn) *writeQueue {
	q := &writeQueue{s: s, sc: &sqlConn{db: db}, wake: make(chan struct{}, 1), stop: make(chan struct{}),
		group: make([]*job, 0, maxGroup)}
	q.closeOnce = sync.OnceValue(func() error {
		q.mu.Lock()
		q.closed = true
		q.mu.Unlock()
		close(q.stop)
		q.done.Wait()
		return q.sc.close()
	})
	q.done.Go(q.loop)
	return q
}

// do runs fn, the body of a write transaction of c, in the queue, and returns
// its error: fn's, or the group's when the group fails to begin or commit. It
// waits as long as the writes ahead of it; as with SQLite's busy handler, the
// wait does not end with ctx, but a write whose ctx has ended when its turn
// comes writes nothing.
func (q *writeQueue) do(ctx context.Context, c *Conn, fn func() error) error {
	j := &c.job
	if j.done == nil {
		j.done = make(chan struct{}, 1)
	}
	j.ctx, j.c, j.fn, j.err, j.ran = ctx, c, fn, nil, false
	defer func() { j.ctx, j.fn, j.err = nil, nil, nil }()
	if err := q.push(j); err != nil {
		return err
	}
	select {
	case q.wake <- struct{}{}:
	default: // the writer has been told already
	}
	<-j.done
	return j.err
}

// push adds j to the writes that wait for the writer, or refuses it once the
// store is closing.
func (q *writeQueue) push(j *job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return errStoreClosed
	}
	if n := len(q.pending); n == cap(q.pending) && q.head > 0 && q.head >= n/2 {
		// Slide the waiting writes to the front rather than grow: under a
		// load that never lets the queue drain, the taken writes before
		// head would otherwise be copied into every larger array.
		live := copy(q.pending, q.pending[q.head:])
		clear(q.pending[live:])
		q.pending, q.head = q.pending[:live], 0
	}
	q.pending = append(q.pending, j)
	q.waiting.Store(int64(len(q.pending) - q.head))
	return nil
}

// loop is the writer: it commits one group after another until stopped, and
// then refuses the writes still pending. It looks for the stop before each
// group and before it takes another write into one, so that a write waiting
// when the store closes is refused, not committed.
func (q *writeQueue) loop() {
	for {
		select {
		case <-q.stop:
			for j := q.take(); j != nil; j = q.take() {
				j.err = errStoreClosed
				j.done <- struct{}{}
			}
			return
		case <-q.wake:
		}
		for !q.stopping() {
			j := q.take()
			if j == nil {
				break
			}
			q.commitGroup(j)
		}
	}
}

// stopping reports whether the store is closing.
func (q *writeQueue) stopping() bool {
	select {
	case <-q.stop:
		return true
	default:
		return false
	}
}

// take returns the write that has waited longest, or nil when none waits.
func (q *writeQueue) take() *job {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.pending) {
		return nil
	}
	j := q.pending[q.head]
	q.pending[q.head] = nil
	if q.head++; q.head == len(q.pending) {
		q.pending, q.head = q.pending[:0], 0 // reuse the array from its start
	}
	q.waiting.Store(int64(len(q.pending) - q.head))
	return j
}

// next takes another waiting write into the group, if there is one and room.
func (q *writeQueue) next() *job {
	if q.broken || len(q.group) == maxGroup || q.stopping() {
		return nil
	}
	return q.take()
}

// commitGroup begins a transaction, runs first and the writes that wait
// behind it, commits, and hands each its result.
func (q *writeQueue) commitGroup(first *job) {
	q.group, q.broken, q.why = q.group[:0], false, nil
	defer func() {
		for i, j := range q.group {
			j.done <- struct{}{}
			q.group[i] = nil
		}
	}()
	if err := q.sc.execHot(hotBeginImmediate); err != nil {
		first.err = fmt.Errorf("begin: %w", err)
		q.group = append(q.group, first)
		return
	}
	for j := first; j != nil; j = q.next() {
		j.err = q.run(j)
		q.group = append(q.group, j)
	}
	var err error
	if q.broken {
		// The cause as text: it may wrap a contract outcome or a replay, which
		// must not reach the group's writes as theirs.
		err = fmt.Errorf("a write of the group could not be undone alone: %v", q.why)
	} else {
		err = q.sc.execHot(hotCommit)
	}
	if err != nil {
		// Nothing of the group is kept, so no write that ran may report what it
		// found: not a success, not a replay of a key an earlier write of the
		// group stored, not a conflict with a version it committed.
		rerr := q.sc.execHot(hotRollback)
		if rerr != nil && !q.sc.db.AutocommitEnabled() {
			err = errors.Join(err, fmt.Errorf("rollback: %w", rerr))
		}
		for _, j := range q.group {
			if j.ran {
				j.err = fmt.Errorf("commit: %w", err)
			}
		}
		return
	}
	q.groups.Add(1)
	for _, j := range q.group {
		if j.err == nil && q.s.ckpt != nil && q.commits.Add(1)%checkpointEvery == 0 {
			q.s.ckpt.request()
		}
	}
}

// run runs one write of the group within a savepoint, on the writer
// connection, and rolls it back to the savepoint when it fails, panics or its
// ctx has ended by the time it is done.
func (q *writeQueue) run(j *job) (err error) {
	if err := j.ctx.Err(); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := q.sc.execHot(hotSavepoint); err != nil {
		err = fmt.Errorf("begin: %w", err)
		q.broken, q.why = true, err
		return err
	}
	j.ran = true
	c := j.c
	own := c.sc
	c.sc, c.txOpen = q.sc, true
	defer func() {
		c.sc, c.txOpen = own, false
		if p := recover(); p != nil {
			err = fmt.Errorf("store: panic inside a transaction (rolled back): %v", p)
		}
		if err != nil {
			if rerr := q.sc.execHot(hotRollbackTo); rerr != nil {
				err = errors.Join(err, fmt.Errorf("rollback: %w", rerr))
				q.broken, q.why = true, err
			}
		}
		if rerr := q.sc.execHot(hotRelease); rerr != nil {
			err = errors.Join(err, fmt.Errorf("release: %w", rerr))
			q.broken, q.why = true, err
		}
	}()
	err = j.fn()
	if err == nil && q.s.beforeCommit != nil {
		err = q.s.beforeCommit()
	}
	if err == nil {
		if cerr := j.ctx.Err(); cerr != nil {
			err = fmt.Errorf("commit: %w", cerr)
		}
	}
	return err
}

// close stops the writer, once the group it commits has, and closes its
// connection.
func (q *writeQueue) close() error { return q.closeOnce() }

// checkpointSQL copies the WAL into the database file without waiting for
// readers or writers.
const checkpointSQL = `PRAGMA wal_checkpoint(PASSIVE)`

// checkpointer runs a file store's passive WAL checkpoints on a connection and
// a goroutine of its own, when the store queues its writes (see writeQueue),
// until the store closes.
type checkpointer struct {
	db   *sqlite.Conn
	due  chan struct{} // capacity one: a request made while one waits is the same request
	stop chan struct{}
	done sync.WaitGroup
	// closeOnce makes close safe to call again: it returns the first result.
	closeOnce func() error
	// runs counts the checkpoints run (for tests).
	runs atomic.Int64
}

// startCheckpointer starts the checkpointer on db, which it closes when
// stopped.
func startCheckpointer(db *sqlite.Conn) *checkpointer {
	cp := &checkpointer{db: db, due: make(chan struct{}, 1), stop: make(chan struct{})}
	cp.closeOnce = sync.OnceValue(func() error {
		close(cp.stop)
		cp.done.Wait()
		return cp.db.Close()
	})
	cp.done.Go(cp.loop)
	return cp
}

func (cp *checkpointer) loop() {
	for {
		select {
		case <-cp.stop:
			return
		case <-cp.due:
		}
		// A checkpoint that fails (another is running, the disk is full) leaves
		// the WAL to the next one; a write never fails for it.
		_ = execScript(cp.db, checkpointSQL)
		cp.runs.Add(1)
	}
}

// request asks for a checkpoint without waiting for it.
func (cp *checkpointer) request() {
	select {
	case cp.due <- struct{}{}:
	default:
	}
}

// close stops the checkpointer, once a checkpoint it runs has ended, and
// closes its connection.
func (cp *checkpointer) close() error { return cp.closeOnce() }
