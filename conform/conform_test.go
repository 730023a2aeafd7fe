package conform

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

// verdicts runs conform on the embedded store serving v and returns each
// check's outcome by name.
func verdicts(t *testing.T, v contract.Variant) (Report, map[string]Outcome) {
	t.Helper()
	tg := &store.Target{InMemory: true}
	t.Cleanup(func() { tg.Close() })
	rep, err := Run(ctx, tg, Options{Variant: v})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Outcome{}
	for _, c := range rep.Checks {
		out[c.Name] = c.Outcome
		if c.Outcome == Fail && len(c.Evidence) == 0 {
			t.Errorf("%s failed without evidence", c.Name)
		}
	}
	return rep, out
}

// Each variant fails exactly the clauses it breaks.
func TestVariants(t *testing.T) {
	for _, tc := range []struct {
		name    string
		variant contract.Variant
		fails   []string
	}{
		{"default", contract.Variant{}, nil},
		{"guard tab", contract.Variant{Guard: contract.GuardTab}, nil},
		{"us-suffix", contract.Variant{VersionFormat: contract.FormatUSSuffix}, nil},
		{"guard none", contract.Variant{Guard: contract.GuardNone}, []string{"stale version", "concurrent writers"}},
		{"version-first", contract.Variant{Order: contract.OrderVersionFirst}, []string{"same-key resend"}},
		{"ms", contract.Variant{VersionFormat: contract.FormatMS}, []string{"writes within a millisecond"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, got := verdicts(t, tc.variant)
			var fails []string
			for _, c := range rep.Checks {
				if c.Outcome == Fail {
					fails = append(fails, c.Name)
				}
			}
			if strings.Join(fails, ", ") != strings.Join(tc.fails, ", ") {
				for _, c := range rep.Checks {
					t.Logf("%-30s %-4s %s", c.Name, c.Outcome, c.Detail)
				}
				t.Fatalf("failed %v, want %v", fails, tc.fails)
			}
			if rep.Failed != len(tc.fails) || rep.Passed+rep.Failed+rep.Info != len(rep.Checks) {
				t.Fatalf("counts %+v", rep)
			}
			wantPerTab := Info
			if tc.variant.Guard == contract.GuardTab {
				wantPerTab = Pass
			}
			if got["per-tab versions"] != wantPerTab {
				t.Fatalf("per-tab versions: %s, want %s", got["per-tab versions"], wantPerTab)
			}
		})
	}
}

// Over MCP, against serve, the verdicts are the embedded ones.
func TestOverMCP(t *testing.T) {
	for _, tc := range []struct {
		variant contract.Variant
		fails   string
	}{
		{contract.Variant{}, ""},
		{contract.Variant{Guard: contract.GuardNone}, "stale version, concurrent writers"},
	} {
		t.Run(string(tc.variant.WithDefaults().Guard), func(t *testing.T) {
			st, err := store.Open(store.InMemory, store.Options{Guard: tc.variant.Guard})
			if err != nil {
				t.Fatal(err)
			}
			srv, err := serve.New(ctx, st, serve.Options{Extensions: serve.ExtensionsAll, Variant: tc.variant})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			tg, err := mcpclient.New(ctx, "in-memory", func(ctx context.Context) (mcp.Transport, error) {
				st, ct := mcp.NewInMemoryTransports()
				_, err := srv.MCP().Connect(ctx, st, nil)
				return ct, err
			}, mcpclient.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			rep, err := Run(ctx, tg, Options{Name: "in-memory"})
			if err != nil {
				t.Fatal(err)
			}
			var fails []string
			for _, c := range rep.Checks {
				if c.Outcome == Fail {
					fails = append(fails, c.Name)
				}
			}
			if got := strings.Join(fails, ", "); got != tc.fails || rep.Checks[0].Detail != "the seven tools, each with the contract's required fields" {
				t.Fatalf("failed %q, want %q; %+v", got, tc.fails, rep.Checks[0])
			}
		})
	}
}
