package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
)

// DefaultMaxErrors is how many calls of one run may end in a server error
// (a refusal other than a version conflict, or an outcome nobody knows)
// before the run is ended: a healthy server makes none, and the published
// setup makes some 600 calls a run.
const DefaultMaxErrors = 1000

// triesBound bounds the calls one edit of a run may take, when its editors
// make edits edits in all. On a server that keeps the contract every
// conflict means another editor's write landed since the read, so an edit
// conflicts at most as often as the others write: twice that, and some,
// is never reached by a run that measures anything, and ends the loop of
// a server whose versions never match (the published setup needs at most 3
// tries; a starved writer, as many as the others' edits).
func triesBound(edits int) int { return 2*edits + 10 }

// ErrorLimitError ends a run whose calls ended in server errors as often as
// its limit allows: the server is clearly broken. What the run measured
// until then is kept.
type ErrorLimitError struct {
	Errors int
	// Last is the server's last error.
	Last error
}

func (e *ErrorLimitError) Error() string {
	return fmt.Sprintf("ended after %s %s that ended in an error; the server's last: %v", plural.Int(int64(e.Errors)), plural.Noun(e.Errors, "call"), e.Last)
}

// MaxCallsPerIntent bounds the calls spent on one intended tab or citation. With a
// drop below 1 a run ends with probability 1 (a drop of 0.99 needs 100 calls per
// intent on average); the bound turns a client that loops for another reason into
// an error instead of a hang.
const MaxCallsPerIntent = 10_000

// ErrorBudget counts the calls of one run that ended in a server error, for
// every editor of the run, and ends the run at its limit. It holds the
// run's time limit too (Runtime.StopAt).
type ErrorBudget struct {
	max  int // 0: no limit
	mu   sync.Mutex
	n    int
	last error
	// stopAt is the wall-clock time after which the run's editors start
	// no edit, zero for none; timedOut says one of them stopped there.
	stopAt   time.Time
	timedOut atomic.Bool
}

// until sets the run's time limit to stopAt, on the real clock; it returns
// b.
func (b *ErrorBudget) until(stopAt time.Time, clock ClockKind) *ErrorBudget {
	if clock == ClockReal {
		b.stopAt = stopAt
	}
	return b
}

// timeUp reports whether the run is past its time limit, and records that
// an editor stopped there. A nil budget has none.
func (b *ErrorBudget) timeUp() bool {
	if b == nil || b.stopAt.IsZero() || time.Now().Before(b.stopAt) {
		return false
	}
	b.timedOut.Store(true)
	return true
}

// NewErrorBudget returns the budget of a run that may have max errors; 0
// or less means DefaultMaxErrors.
func NewErrorBudget(max int) *ErrorBudget {
	if max <= 0 {
		max = DefaultMaxErrors
	}
	return &ErrorBudget{max: max}
}

// Add counts err, and returns an *ErrorLimitError once the run has had as
// many as its limit. A nil budget counts nothing and has no limit.
func (b *ErrorBudget) Add(err error) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	b.last = err
	if b.n >= b.max {
		return &ErrorLimitError{Errors: b.n, Last: err}
	}
	return nil
}

// Stopping returns the error that must end the caller's run instead of being
// counted: the caller's own ctx ending, or a fault of notesbench's own (a
// profile that cannot read the server's replies). Nil means err is an
// outcome of the server's, to count.
func Stopping(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if cause := context.Cause(ctx); cause != nil {
			return cause
		}
		return ctxErr
	}
	if contract.Stops(err) {
		return err
	}
	return nil
}

// SetupFailed is err, an error of a run's setup (the run opened, its Note
// made, its sessions opened), as what the run measured: a fault of the
// server's, said as the run's SetupFailed, while the seeds beside it run
// on. ctx's end and a fault of notesbench's own end the whole run: stop.
func SetupFailed(ctx context.Context, name string, err error) (failed string, stop error) {
	if stop := Stopping(ctx, err); stop != nil {
		return "", stop
	}
	var fe *field.Error
	if errors.As(err, &fe) {
		return "", err // a setting of the user's the target refused: bad input
	}
	return name + ": setting up: " + err.Error(), nil
}

// StoppedBy reports whether err is the error limit of a run: the run ended,
// but what it measured counts.
func StoppedBy(err error) (*ErrorLimitError, bool) {
	var limit *ErrorLimitError
	if errors.As(err, &limit) {
		return limit, true
	}
	return nil, false
}

// finalTries bounds the reads of a final state whose outcome is unknown.
const finalTries = 3

// finalRetryPause is the pause between reads of a final state.
const finalRetryPause = 100 * time.Millisecond

// A FinalRead is one read of a run's final state, as its words say it.
type FinalRead[T any] struct {
	// Failed says that the state could not be read: "the final state of
	// markdown could not be read".
	Failed string
	// Reading says what was being read, for the run's error: "reading the
	// final state of markdown".
	Reading string
	// Read reads it once.
	Read func(context.Context) (T, error)
}

// Do reads a run's final state, for counting what the editors left. A read
// the server refused, or answered with something that is no document,
// leaves nothing to find: the state is the zero value and unreadable says
// why, so every acknowledged edit counts as lost. A read whose outcome is
// unknown (a timeout, a dead connection) is made again, up to finalTries
// times; then a server that kept answering an error (KindServerError) has a
// document that cannot be read, as has one that died and did not come back
// (KindDied: a server a kill left unable to start again, which the kill -9
// harness counts alike), and any other failure (no answer at all) is the
// run's error: nothing can be counted.
func (f FinalRead[T]) Do(ctx context.Context, clock Clock) (state T, unreadable string, err error) {
	var zero T
	for try := 1; ; try++ {
		state, err = f.Read(ctx)
		if err == nil {
			return state, "", nil
		}
		if stop := Stopping(ctx, err); stop != nil {
			return zero, "", stop
		}
		if contract.OutcomeOf(err) == contract.Fail || contract.KindOf(err) == contract.KindUnreadable {
			return zero, fmt.Sprintf("%s: %v", f.Failed, err), nil
		}
		if try == finalTries {
			switch contract.KindOf(err) {
			case contract.KindServerError:
				// The server answers, and keeps answering an error: its
				// document cannot be read (a file it wrote half of).
				return zero, fmt.Sprintf("%s: %v", f.Failed, err), nil
			case contract.KindDied:
				// The server is gone and does not come back: what it
				// acknowledged is lost, as far as anyone can tell.
				return zero, fmt.Sprintf("%s: the server died and did not answer again (%d tries): %v", f.Failed, finalTries, err), nil
			}
			return zero, "", fmt.Errorf("%s: %w", f.Reading, err)
		}
		if err := clock.Sleep(ctx, finalRetryPause); err != nil {
			return zero, "", err
		}
	}
}

// readFinal reads tab of a run's final state (FinalRead.Do).
func readFinal(ctx context.Context, clock Clock, s contract.Session, noteID, tab string) (contract.TabContent, string, error) {
	return FinalRead[contract.TabContent]{
		Failed:  "the final state of " + tab + " could not be read",
		Reading: "reading the final state of " + tab,
		Read:    func(ctx context.Context) (contract.TabContent, error) { return s.ReadNoteTab(ctx, noteID, tab) },
	}.Do(ctx, clock)
}

// endRun reads the final state of notes through s into rec and ends the
// run's record, nothing when rec is nil; a final state that could not be
// read (unreadable is why) is left out, and the record ends without it.
func endRun(ctx context.Context, rec *history.Recorder, s contract.Session, unreadable string, notes ...string) error {
	if rec == nil {
		return nil
	}
	if unreadable == "" {
		if err := FinalState(ctx, rec, s, notes...); err != nil {
			return err
		}
	}
	return rec.End()
}
