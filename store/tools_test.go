package store

import (
	"context"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
)

var ctx = context.Background()

// TestContract runs the contract's suite against the SQLite store: WAL files
// and in-memory databases.
func TestContract(t *testing.T) {
	for _, mem := range []bool{false, true} {
		name := "file"
		if mem {
			name = "memory"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			contracttest.Run(t, contracttest.Config{FixedClock: true, Open: func(t testing.TB, run contract.RunSpec) contract.Backend {
				tg := &Target{Dir: t.TempDir(), InMemory: mem}
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
