package backend

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/serve"
)

// conform passes against serve over a PostgreSQL backend, as
// `notesbench serve --store postgres://…` will run it: every clause of the
// published connector, over MCP, with the server's real clock.
func TestConformOverServeOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite over serve on PostgreSQL: make test runs it")
	}
	ctx := context.Background()
	b, err := OpenBackend(Spec{Store: pgtest.URL(t)}, contract.Variant{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(ctx, b, serve.Options{Extensions: serve.ExtensionsAll})
	if err != nil {
		b.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	tg, err := mcpclient.New(ctx, "in-memory", srv.InMemory, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	// Writes within a millisecond are the embedded tests' clause: under the
	// race detector no two writes here come that close, and the clause would
	// write for 10 s to say so.
	rep, err := conform.Run(ctx, tg, conform.Options{Name: "serve on PostgreSQL", FastTime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var fails []string
	for _, c := range rep.Checks {
		if c.Outcome == results.ConformFail {
			fails = append(fails, c.Name+": "+c.Detail)
		}
	}
	if len(fails) > 0 || rep.Passed == 0 || rep.NotApplicable != 0 {
		t.Fatalf("conform on PostgreSQL: %d passed, %d n/a, failed %s", rep.Passed, rep.NotApplicable, strings.Join(fails, "; "))
	}
	// The server says which versions it makes: counters, named as such.
	if rep.VersionFormat != contract.FormatCounter {
		t.Errorf("versions %q", rep.VersionFormat)
	}
	for _, c := range rep.Checks {
		if c.Name == "versions increase" && !strings.HasSuffix(c.Detail, ": counter versions, each greater") {
			t.Errorf("%s: %s", c.Name, c.Detail)
		}
	}
}
