package serve

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/store"
)

// BenchmarkStatelessServe measures serve's side of a write over streamable
// HTTP in one process: an SDK client on 2026-07-28 (stateless, a session
// made for each request) and one on a 2025-11-25 session write in turn to
// one server of a file database, the first of them alternating. It reports
// each one's median in µs and "stateless-x", the ratio of the medians; with
// -cpuprofile it shows where a stateless request goes.
//
//	go test -run '^$' -bench BenchmarkStatelessServe -benchtime 3000x ./serve
func BenchmarkStatelessServe(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.Options{QueueWrites: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := st.CreateNote(ctx, "note-1"); err != nil {
		b.Fatal(err)
	}
	srv, err := New(ctx, st, Options{})
	if err != nil {
		b.Fatal(err)
	}
	closeOnCleanup(b, srv)
	url := serveHTTPT(b, srv)
	type client struct {
		name string
		cs   *mcp.ClientSession
	}
	var clients []client
	for _, c := range []struct{ name, version string }{{"stateless", ""}, {"session", "2025-11-25"}} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		clients = append(clients, client{c.name, cs})
	}
	text := strings.Repeat("x", 200)
	version := 1
	write := func(cs *mcp.ClientSession, key string) time.Duration {
		args := fmt.Sprintf(`{"note_id":"note-1","tab_id":"markdown","expected_version":%d,"idempotency_key":%q,"operation":"replace_text","text":%q}`, version, key, text)
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: contract.ToolEditNoteTab, Arguments: json.RawMessage(args)})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
		version++
		return d
	}
	for i := range 200 {
		for _, c := range clients {
			write(c.cs, fmt.Sprintf("warm-%s-%d", c.name, i))
		}
	}
	samples := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		order := clients
		if i%2 == 1 {
			order = []client{clients[1], clients[0]}
		}
		for _, c := range order {
			samples[c.name] = append(samples[c.name], write(c.cs, fmt.Sprintf("%s-%d", c.name, i)))
		}
	}
	b.StopTimer()
	median := func(name string) float64 {
		s := slices.Clone(samples[name])
		slices.Sort(s)
		return float64(s[len(s)/2]) / 1e3
	}
	b.ReportMetric(median("stateless"), "stateless-median-µs")
	b.ReportMetric(median("session"), "session-median-µs")
	b.ReportMetric(median("stateless")/median("session"), "stateless-x")
}
