package serve

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
)

// BenchmarkSessionStrategy compares how the calls of one MCP session get a
// contract session: the pool (the server's choice), one session for all
// calls taken in turn, and one session opened per call; with calls one after
// another (the usual client), and with 4 calls in flight at once. Each call
// is a 200-character replace_text on an in-memory database.
//
//	go test -run '^$' -bench BenchmarkSessionStrategy ./serve
func BenchmarkSessionStrategy(b *testing.B) {
	text := strings.Repeat("x", 200)
	for _, st := range []struct {
		name string
		s    strategy
	}{{"pooled", pooled}, {"serialized", serialized}, {"per-call", perCall}} {
		for _, inflight := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/inflight-%d", st.name, inflight), func(b *testing.B) {
				srv, cs := start(b, contract.Variant{Guard: contract.GuardNone}, Options{})
				b.Cleanup(func() { srv.Close() })
				srv.strategy = st.s
				var wg sync.WaitGroup
				b.ResetTimer()
				for w := range inflight {
					// The b.N calls, shared out: the first b.N % inflight
					// writers make one more.
					calls := b.N / inflight
					if w < b.N%inflight {
						calls++
					}
					wg.Go(func() {
						for i := range calls {
							_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_note_tab", Arguments: map[string]any{
								"note_id": "note-1", "tab_id": "markdown", "expected_version": 1,
								"idempotency_key": fmt.Sprintf("%d-%d", w, i), "operation": "replace_text", "text": text}})
							if err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
			})
		}
	}
}
