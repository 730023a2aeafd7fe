package pgstore

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/internal/testpass"
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

// runSuite runs the contract's suite against tg, every variant, on the
// suite's fixed clock.
func runSuite(t *testing.T, tg *Target) {
	contracttest.Run(t, contracttest.Config{FixedClock: true, Light: testing.Short() || testpass.Race, Open: func(t testing.TB, run contract.RunSpec) contract.Backend {
		b, err := tg.Open(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}})
}

// TestContract runs the contract's suite against PostgreSQL, every variant,
// on the suite's fixed clock.
func TestContract(t *testing.T) {
	tg := newTarget(t)
	runSuite(t, tg)
}

// TestContractUnnamedStatements runs the suite with a query exec mode that
// keeps no prepared statements on the connection (as behind a pooler in
// transaction mode): the write path then sends its statements unnamed, and
// prepares none.
func TestContractUnnamedStatements(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite runs once in -short and under the race detector (make test's time); make test-large runs it again on unnamed statements")
	}
	testpass.Large(t, "the suite runs once in -short and under the race detector (make test's time)")
	tg := &Target{URL: withSetting(t, pgtest.URL(t), "default_query_exec_mode", "exec")}
	runSuite(t, tg)
	describe := &Target{URL: withSetting(t, pgtest.URL(t), "default_query_exec_mode", "cache_describe")}
	for _, tc := range []struct {
		target   *Target
		prepared bool
	}{{newTarget(t), true}, {tg, false}, {describe, false}} {
		_, c := openNote(t, tc.target, contract.RunSpec{})
		if _, err := replaceText(c, "1", "k", "text"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := c.conn.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'notesbench_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if got := n > 0; got != tc.prepared {
			t.Errorf("URL %s: %d statements of the write path prepared", safeURL(tc.target), n)
		}
	}
}

// withSetting adds a connection setting to a URL or a keyword/value string.
func withSetting(t testing.TB, conn, key, value string) string {
	t.Helper()
	if !strings.Contains(conn, "://") {
		return conn + " " + key + "=" + value
	}
	u, err := url.Parse(conn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
