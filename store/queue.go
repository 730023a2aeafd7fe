package store

import (
	"context"
	"sync"
	"sync/atomic"
)

// writeQueue hands SQLite's write lock from one of a store's writers to the
// next in Go, when the store queues writes (Options.QueueWrites). A writer
// takes the queue's lock before BEGIN IMMEDIATE and gives it up after COMMIT
// or ROLLBACK, so BEGIN IMMEDIATE finds SQLite's lock free unless another
// process holds it, and a waiting writer wakes as soon as the writer before it
// is done, instead of polling in SQLite's busy handler with pauses that grow
// to 100 ms.
//
// The lock is a sync.Mutex. Its waiters queue in arrival order; a writer that
// is running when the lock comes free may take it ahead of a waiter that has
// yet to wake, which keeps SQLite busy instead of idle during a wake-up, and a
// waiter kept waiting over a millisecond switches the mutex to strict hand-off
// in arrival order (sync.Mutex's starvation mode). So a wait is bounded by
// about a millisecond plus the writes queued ahead.
//
// Checkpoints move out of the queue. SQLite's automatic checkpoint runs inside
// the COMMIT of the write that fills the WAL past 1,000 pages, copying it into
// the database file and syncing that; SQLite lets other writers commit
// meanwhile, but in the queue they would wait for it, every one of them, for
// as long as the sync takes. So a store that queues its writes turns the
// automatic checkpoint off (PRAGMA wal_autocheckpoint = 0), and every
// checkpointEvery-th write, once it has released the queue, runs a passive
// checkpoint itself on its connection, while the writers behind it go on.
//
// A nil *writeQueue queues nothing.
type writeQueue struct {
	mu sync.Mutex
	// commits counts committed writes, to pace the checkpoints.
	commits atomic.Uint64
	// waiting counts the writers waiting for the lock, and checkpoints the
	// checkpoints run (for tests).
	waiting     atomic.Int64
	checkpoints atomic.Int64
}

// checkpointEvery is how many writes pass between two checkpoints of a store
// that queues its writes: about SQLite's 1,000 WAL pages at the four pages an
// edit writes.
const checkpointEvery = 256

// checkpointDue counts a committed write and reports whether its writer runs
// the next checkpoint.
func (q *writeQueue) checkpointDue() bool { return q.commits.Add(1)%checkpointEvery == 0 }

func newWriteQueue() *writeQueue { return &writeQueue{} }

// acquire waits for the writer's turn, then reports ctx's error, if any: a
// write whose context ended while it waited gives its turn up and writes
// nothing. As with SQLite's busy handler, the wait itself does not end with
// ctx; it lasts as long as the writes ahead, each of which waits at most the
// busy timeout for a lock another process holds.
func (q *writeQueue) acquire(ctx context.Context) error {
	if q == nil {
		return nil
	}
	if !q.mu.TryLock() {
		q.waiting.Add(1)
		q.mu.Lock()
		q.waiting.Add(-1)
	}
	if err := ctx.Err(); err != nil {
		q.mu.Unlock()
		return err
	}
	return nil
}

// release gives the lock to the next writer.
func (q *writeQueue) release() {
	if q != nil {
		q.mu.Unlock()
	}
}
