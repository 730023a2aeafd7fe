package pgstore

import (
	"context"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/pgtest"
)

var ctx = context.Background()

// newTarget returns a Target on the test server, with its URL.
func newTarget(t testing.TB) *Target {
	t.Helper()
	return &Target{URL: pgtest.URL(t)}
}

// open opens a run of variant v on tg, closed at the end of the test.
func open(t testing.TB, tg *Target, run contract.RunSpec) *Store {
	t.Helper()
	s, err := tg.OpenStore(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the run: %v", err)
		}
	})
	return s
}

// TestContract runs the contract's suite against PostgreSQL, every variant,
// on the suite's fixed clock.
func TestContract(t *testing.T) {
	tg := newTarget(t)
	contracttest.Run(t, contracttest.Config{FixedClock: true, Open: func(t testing.TB, run contract.RunSpec) contract.Backend {
		b, err := tg.Open(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}})
}
