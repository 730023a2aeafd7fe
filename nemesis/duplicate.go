package nemesis

import (
	"context"

	"github.com/notesbench/notesbench/history"
)

// Duplicate sends the next write twice at once, the same arguments and key.
type Duplicate struct{}

func (Duplicate) Kind() string  { return history.FaultDuplicate }
func (Duplicate) Place() Place  { return Wire }
func (Duplicate) About() string { return "send a write twice at once" }

func (n Duplicate) Invoke(_ context.Context, r Victim) bool { return r.Arm(n.Kind()) }
