package nemesis

import (
	"context"

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
