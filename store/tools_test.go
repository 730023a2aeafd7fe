package store

import (
	"context"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/testpass"
)

var ctx = context.Background()

// TestContract runs the contract's suite against the SQLite store: WAL files
// and in-memory databases, each editor on a connection of its own as the
// published setup has it, and WAL files with the writes queued, as serve opens
// its store. Under the race detector the concurrent re-apply clause runs in
// full (8 editors of 100 edits) on the queued store, where the writers meet
// in Go, in its queue, and light on the others, whose editors meet in
// SQLite's busy handler: make test-large runs it in full on all three.
func TestContract(t *testing.T) {
	for _, tc := range []struct {
		name          string
		mem, queueing bool
	}{{"file", false, false}, {"memory", true, false}, {"file queued", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			light := testpass.Race && !tc.queueing
			contracttest.Run(t, contracttest.Config{FixedClock: true, Light: light, Open: func(t testing.TB, run contract.RunSpec) contract.Backend {
				tg := &Target{Dir: t.TempDir(), InMemory: tc.mem, QueueWrites: tc.queueing}
				t.Cleanup(func() { tg.Close() })
				b, err := tg.Open(ctx, run)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}})
		})
	}
}
