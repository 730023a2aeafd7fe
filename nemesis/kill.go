package nemesis

import (
	"context"

	"github.com/notesbench/notesbench/history"
)

// Kill SIGKILLs the server's processes while a write is in flight; the
// client starts the server again with the same command.
type Kill struct{}

func (Kill) Kind() string  { return history.FaultKill }
func (Kill) Place() Place  { return Process }
func (Kill) About() string { return "SIGKILL, then start it again" }

func (Kill) Invoke(ctx context.Context, r Victim) bool {
	if !r.AwaitWrite() {
		return false
	}
	_ = r.Kill(ctx) // a kill that found nothing to kill is no fault
	return true
}
