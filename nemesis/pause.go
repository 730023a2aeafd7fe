package nemesis

import (
	"context"
	"slices"
	"time"

	"github.com/notesbench/notesbench/history"
)

// Pause stops the server's processes (SIGSTOP) while a write is in flight,
// past the call timeout, then continues them (SIGCONT).
type Pause struct{}

func (Pause) Kind() string  { return history.FaultPause }
func (Pause) Place() Place  { return Process }
func (Pause) About() string { return "SIGSTOP past --call-timeout, then SIGCONT" }

func (Pause) Invoke(_ context.Context, r Victim) bool {
	if !r.AwaitWrite() {
		return false
	}
	r.Pause()
	return true
}

// PauseTimeout is the call timeout a pause outlasts when none is given.
const PauseTimeout = time.Second

// CallTimeout is the bound on each call of a run under the faults kinds,
// given timeout (0: no bound): a pause needs one to outlast, PauseTimeout
// when none is given.
func CallTimeout(kinds []string, timeout time.Duration) time.Duration {
	if timeout == 0 && slices.Contains(kinds, history.FaultPause) {
		return PauseTimeout
	}
	return timeout
}
