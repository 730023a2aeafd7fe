package store

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// writeQueue hands SQLite's write lock from one of a store's writers to the
// next in Go, first come first served, when the store queues writes
// (Options.QueueWrites). A writer takes its place before BEGIN IMMEDIATE and
// gives it up after COMMIT or ROLLBACK, so BEGIN IMMEDIATE finds the lock free
// unless another process holds it, and a waiting writer wakes as soon as the
// writer before it is done, instead of polling in SQLite's busy handler with
// pauses that grow to 100 ms.
//
// The lock is a channel of capacity one: a full channel is a held lock. Go
// queues the goroutines blocked sending on a channel in order and, when the
// holder receives, moves the first one's value straight in, so the lock passes
// in arrival order and a newcomer cannot take it ahead of those waiting. A nil
// *writeQueue queues nothing.
type writeQueue struct {
	turn chan struct{}
	// waiting counts the writers waiting for their turn (for tests).
	waiting atomic.Int64
}

func newWriteQueue() *writeQueue { return &writeQueue{turn: make(chan struct{}, 1)} }

// acquire waits for the writer's turn, at most the busy timeout, or until ctx
// is done: a write that gives up waiting has written nothing.
func (q *writeQueue) acquire(ctx context.Context) error {
	if q == nil {
		return nil
	}
	select {
	case q.turn <- struct{}{}:
		return nil
	default:
	}
	q.waiting.Add(1)
	defer q.waiting.Add(-1)
	t := time.NewTimer(busyTimeout)
	defer t.Stop()
	select {
	case q.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("waited %s for the write lock", busyTimeout)
	}
}

// release hands the lock to the next writer in the queue.
func (q *writeQueue) release() {
	if q != nil {
		<-q.turn
	}
}
