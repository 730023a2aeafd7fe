package mcpclient

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/brokenserver"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/store"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" || os.Getenv(pgEnv) != "" {
		helperServer()
	}
	if addr := os.Getenv(listenOnceEnv); addr != "" {
		os.Exit(listenOnce(addr))
	}
	if os.Getenv(brokenserver.DirEnv) != "" {
		os.Exit(brokenserver.Main())
	}
	goleak.VerifyTestMain(m)
}

var ctx = context.Background()

// newServer makes serve, with its extensions, of an in-memory store of
// variant v; the server is closed when the test ends.
func newServer(t testing.TB, v contract.Variant) *serve.Server {
	t.Helper()
	st, err := store.Open(store.InMemory, store.Options{Guard: v.Guard, VersionFormat: v.VersionFormat, Order: v.Order, KeyReuse: v.KeyReuse})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(ctx, st, serve.Options{Variant: v, Describe: "SQLite in memory", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, "server", srv)
	return srv
}

// inMemory starts serve on an in-memory store of variant v and returns a
// Target over the SDK's in-memory transports; both are closed when the test
// ends.
func inMemory(t testing.TB, v contract.Variant) *Target {
	t.Helper()
	srv := newServer(t, v)
	tg, err := New(ctx, "in-memory", srv.InMemory, Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, "target", tg)
	return tg
}

// TestContract runs the contract's suite over MCP against serve: every clause
// but those that set the server's clock.
func TestContract(t *testing.T) {
	t.Parallel() // beside the tests that wait on start timeouts
	contracttest.Run(t, contracttest.Config{Light: true, Open: func(t testing.TB, run contract.RunSpec) contract.Backend {
		tg := inMemory(t, run.Variant)
		b, err := tg.Open(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}})
}
