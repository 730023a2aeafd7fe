package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The environment variables pgtest reads.
const (
	// EnvURL names a server to use instead of starting one.
	EnvURL = "NOTESBENCH_POSTGRES_URL"
	// EnvRequire, set to 1, turns every skip for want of a server into a
	// failure.
	EnvRequire = "NOTESBENCH_REQUIRE_POSTGRES"
	// EnvBin names the folder of the server binaries, when they are not where
	// BinDir looks.
	EnvBin = "NOTESBENCH_POSTGRES_BIN"
)

// shared is the cluster of the test binary, started by the first URL call and
// stopped by Run.
var shared struct {
	mu      sync.Mutex
	running bool // Run is in progress
	once    sync.Once
	url     string
	cluster *Cluster
	reason  string // why there is no server, when there is none
}

// Run runs the package's tests (m.Run), then stops the cluster URL started, if
// it started one, and then checks that no goroutine outlived the tests
// (goleak; the cluster's own is gone by then). It returns the exit code for
// os.Exit. A cluster that cannot be stopped cleanly, or a goroutine left
// running, fails the run.
func Run(m *testing.M) int {
	code := runAndStop(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	return code
}

func runAndStop(m *testing.M) int {
	shared.mu.Lock()
	shared.running = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.running = false
	if c := shared.cluster; c != nil {
		shared.cluster = nil
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// URL returns the URL of a PostgreSQL server for t: NOTESBENCH_POSTGRES_URL
// when it is set, else that of a throwaway cluster started on first use and
// shared by every test of the binary. It skips t, with one line saying why,
// when there is no server to be had, or fails it under
// NOTESBENCH_REQUIRE_POSTGRES=1. The quick loop (-short) starts no cluster:
// it skips t unless NOTESBENCH_POSTGRES_URL names a server.
func URL(t testing.TB) string {
	t.Helper()
	shared.mu.Lock()
	running := shared.running
	shared.mu.Unlock()
	if !running {
		t.Fatal("pgtest: call os.Exit(pgtest.Run(m)) from TestMain, so that the cluster is stopped")
	}
	if testing.Short() && os.Getenv(EnvURL) == "" {
		t.Skipf("starts a PostgreSQL cluster: make test runs it (or set %s)", EnvURL)
	}
	shared.once.Do(func() {
		if u := os.Getenv(EnvURL); u != "" {
			shared.url = u
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c, err := Start(ctx)
		if err != nil {
			shared.reason = fmt.Sprintf("%s is not set and no throwaway cluster could be started: %v", EnvURL, err)
			return
		}
		shared.mu.Lock()
		shared.cluster = c
		shared.mu.Unlock()
		shared.url = c.URL
	})
	if shared.url == "" {
		unavailable(t, shared.reason)
	}
	return shared.url
}

// NewCluster starts a throwaway cluster of t's own, stopped when t ends, for a
// test that stops or breaks its server. It needs the local server binaries,
// whatever NOTESBENCH_POSTGRES_URL says; without them it skips t, or fails it
// under NOTESBENCH_REQUIRE_POSTGRES=1. The quick loop (-short) skips t: a
// cluster start beside the package's shared one is a second or two, and
// make test runs it.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own: make test runs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx)
	if err != nil {
		unavailable(t, fmt.Sprintf("no throwaway cluster could be started: %v", err))
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("PostgreSQL required (%s=1) but unavailable: %s", EnvRequire, reason)
	}
	t.Skipf("no PostgreSQL: %s", reason)
}
