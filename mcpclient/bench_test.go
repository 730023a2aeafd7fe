package mcpclient

import (
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/bench"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// bench against a server that keeps its Notes in the memory of each process
// (notesbench serve --memory over stdio) is one line saying why it cannot be
// benched, not a Note that is not found.
func TestBenchRefusesProcessMemoryServer(t *testing.T) {
	cfg := bench.Default()
	cfg.Writes, cfg.Reps, cfg.Warmup, cfg.Guards = 3, 1, 0, []contract.Guard{contract.GuardNote}
	_, err := cfg.Run(ctx, sim.Runtime{Target: dialT(t, helperTarget(t, store.InMemory), Options{})}, nil)
	if err == nil || !strings.Contains(err.Error(), "a new session does not see the Notes made in another") {
		t.Fatalf("error %v, want the one saying why", err)
	}
}
