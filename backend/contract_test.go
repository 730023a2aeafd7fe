package backend

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/serve"
)

// The contract's suite over MCP against serve, opened as notesbench serve
// opens it: OpenBackend on a database file (its writes queued, committed in
// groups), served by serve.New with its extensions, reached through the MCP
// client. Every clause but those that set the server's clock. Under the race
// detector and in -short it is left to make test-large: its two halves run
// on their own, the suite over MCP against serve in mcpclient's TestContract
// and on the queued file store in store's.
func TestContractAsServed(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite over MCP and on the queued store run in mcpclient and store: make test-large runs it")
	}
	testpass.Large(t, "the suite over MCP and on the queued store run in mcpclient and store")
	ctx := context.Background()
	contracttest.Run(t, contracttest.Config{Light: true, Open: func(t testing.TB, run contract.RunSpec) contract.Backend {
		b, err := OpenBackend(Spec{File: filepath.Join(t.TempDir(), "served.db")}, run.Variant, run.Seed)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := serve.New(ctx, b, serve.Options{Extensions: serve.ExtensionsOnRequest, Variant: run.Variant.WithDefaults(), Version: "test"})
		if err != nil {
			b.Close()
			t.Fatal(err)
		}
		t.Cleanup(func() { // the server closes the database
			if err := srv.Close(); err != nil {
				t.Errorf("closing the server: %v", err)
			}
		})
		tg, err := mcpclient.New(ctx, "in-memory", srv.InMemory, mcpclient.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := tg.Close(); err != nil {
				t.Errorf("closing the client: %v", err)
			}
		})
		mb, err := tg.Open(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		return mb
	}})
}
