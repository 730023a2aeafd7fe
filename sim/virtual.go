package sim

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Virtual is a Clock that runs editors one at a time in virtual time, deterministically
// and without sleeping for real.
//
// Editors are goroutines, but a token passes between them and the scheduler over
// channels, so exactly one runs at any moment and the race detector sees every
// hand-off. Sleep parks the running editor until virtual time reaches now+d; parked
// editors wake in order of wake time, then of the sequence number their Sleep got
// when it was called. The same editors with the same behaviour therefore interleave
// identically on any machine and any GOMAXPROCS.
//
// Sleep and Busy must be called from the goroutine Run started for the editor; outside
// Run a single goroutine may call them to advance time. Now may be called by the
// running editor and outside Run. An editor that blocks on anything but the clock (a
// channel another editor should fill, a lock another editor holds) blocks the whole
// run, because no other editor runs meanwhile.
type Virtual struct {
	serviceTime time.Duration
	yield       chan turnEnd // the running editor hands the token back on it
	running     atomic.Bool  // a Run is in progress

	// The fields below belong to the token holder: the running editor, or the
	// scheduler between two turns. The channel hand-offs order every access.
	now     time.Time
	seq     uint64
	queue   wakeQueue
	current chan error // the running editor's wake channel; nil outside Run
	stop    error      // once the run is cancelled, what every Sleep returns
	// lockFreeAt is when the modelled SQLite write lock is free again.
	lockFreeAt time.Time
}

// turnEnd is what an editor sends when it hands the token back: it parked itself in
// the queue, or it returned (done) with err.
type turnEnd struct {
	done bool
	err  error
}

var _ Clock = (*Virtual)(nil)

// NewVirtual returns a virtual clock that reads start until an editor sleeps and that
// advances an editor by serviceTime on every Busy. A serviceTime of zero or less makes
// Busy a pure yield to the editors runnable at the same instant. The monotonic reading
// of start, if any, is dropped, so that times print the same on every run.
func NewVirtual(start time.Time, serviceTime time.Duration) *Virtual {
	return &Virtual{serviceTime: max(serviceTime, 0), yield: make(chan turnEnd), now: start.Round(0)}
}

// Now returns the virtual time.
func (v *Virtual) Now() time.Time { return v.now }

// Sleep parks the calling editor until virtual time reaches now+d, letting the other
// editors run meanwhile; a d of zero or less lets the editors already runnable at this
// instant run first. It returns ctx.Err() if ctx is done, and the run's context error
// once the run is cancelled, without advancing time.
func (v *Virtual) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if v.stop != nil {
		return v.stop
	}
	d = max(d, 0)
	wake := v.current
	if wake == nil { // outside Run the caller is alone: sleeping is advancing time
		v.now = v.now.Add(d)
		return nil
	}
	v.seq++
	heap.Push(&v.queue, wakeup{at: v.now.Add(d), seq: v.seq, wake: wake})
	v.yield <- turnEnd{}
	if err := <-wake; err != nil {
		return err
	}
	return ctx.Err()
}

// Busy sleeps for the clock's service time: the cost of one store operation. Other
// editors run meanwhile, so call it outside any database transaction: an editor
// waiting on a lock held by a parked editor would wait for real, holding up the run.
func (v *Virtual) Busy(ctx context.Context) error { return v.Sleep(ctx, v.serviceTime) }

// busyDelays is the schedule of SQLite's default busy handler
// (sqliteDefaultBusyCallback): the pause before each new attempt to take a lock
// that was held, the last one repeating.
var busyDelays = [...]time.Duration{1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100}

// BusyWrite models one write transaction against SQLite's write lock. The lock is
// held for the service time from the instant a writer takes it; a writer that
// finds it held pauses as SQLite's busy handler would and tries again. Reads
// (Busy) never wait: in WAL mode they see the last committed state.
func (v *Virtual) BusyWrite(ctx context.Context) error {
	for attempt := 0; v.now.Before(v.lockFreeAt); attempt++ {
		if err := v.Sleep(ctx, busyDelays[min(attempt, len(busyDelays)-1)]*time.Millisecond); err != nil {
			return err
		}
	}
	v.lockFreeAt = v.now.Add(v.serviceTime)
	return v.Sleep(ctx, v.serviceTime)
}

// Run makes every fn runnable at the current virtual time, in argument order, and
// schedules them in the calling goroutine until all have returned. When ctx is
// cancelled or an fn returns an error, the fns' ctx is cancelled, virtual time stops,
// and every parked editor wakes (in queue order) with the context error from its
// Sleep. Run returns the first error, preferring an fn's own error to a context error;
// a panic in an fn is recovered and returned as an error naming the editor ("editor 2
// panicked: ...", counting fns from 0). Calling Run while another Run is in progress
// on the same clock is an error.
func (v *Virtual) Run(ctx context.Context, fns ...func(ctx context.Context) error) error {
	if !v.running.CompareAndSwap(false, true) {
		return errors.New("virtual clock is already running editors")
	}
	defer v.running.Store(false)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	for i, fn := range fns {
		wake := make(chan error)
		v.seq++
		heap.Push(&v.queue, wakeup{at: v.now, seq: v.seq, wake: wake})
		wg.Go(func() {
			protect(editorName(i), func() error {
				<-wake // the first turn; a cancelled run shows in runCtx
				return fn(runCtx)
			}, func(err error) { v.yield <- turnEnd{done: true, err: err} })
		})
	}

	var first firstError
	for live := len(fns); live > 0; {
		if v.stop == nil && runCtx.Err() != nil {
			v.stop = runCtx.Err()
		}
		next := heap.Pop(&v.queue).(wakeup)
		if v.stop == nil {
			v.now = next.at
		}
		v.current = next.wake
		next.wake <- v.stop
		if end := <-v.yield; end.done {
			live--
			if first.keep(end.err) {
				cancel()
			}
		}
	}
	v.current, v.stop = nil, nil
	wg.Wait() // every editor has reported; let its goroutine finish too
	return first.err
}

// wakeup is a parked editor: when it wakes, and its place among editors waking at the
// same instant.
type wakeup struct {
	at   time.Time
	seq  uint64
	wake chan error
}

// wakeQueue is a min-heap of wakeups ordered by (at, seq).
type wakeQueue []wakeup

func (q wakeQueue) Len() int { return len(q) }

func (q wakeQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}

func (q wakeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

func (q *wakeQueue) Push(x any) { *q = append(*q, x.(wakeup)) }

func (q *wakeQueue) Pop() any {
	old := *q
	n := len(old) - 1
	x := old[n]
	old[n] = wakeup{}
	*q = old[:n]
	return x
}
