package serve

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// Four editors of one program, one clientInfo, each a stateless (2026-07-28)
// client on an HTTP client of its own, read the Note and each write a line
// built on what it read, under no version check: each write overwrites the
// one before. The history tells the editors apart by their connections, a
// session each, and check counts four sessions of the one agent and names
// each overwrite with two of them. Recorded by clientInfo alone, they were
// one session: "Sessions 1", and every editor overwrote itself.
func TestStatelessClientsApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	start := time.Now()
	v := contract.Variant{Guard: contract.GuardNone}
	log := recordLog(t, path, v, start)
	srv := newServer(t, v, Options{History: log})
	url := serveHTTPT(t, srv)
	const editors = 4
	var sessions [editors]*mcp.ClientSession
	for i := range sessions {
		// An HTTP client of its own, as a program's editors or separate
		// programs have: one pool's connections serve any of its clients.
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		c := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != StatelessVersion {
			t.Fatalf("negotiated %s, not the stateless protocol", got)
		}
		sessions[i] = cs
	}
	texts := make([]string, editors)
	for i, cs := range sessions {
		_, out := call(t, cs, contract.ToolReadNoteTab, `{"note_id":"note-1","tab_id":"markdown"}`)
		texts[i] = out["data"].(string)
	}
	for i, cs := range sessions {
		text := strings.TrimSpace(texts[i] + "\neditor-" + fmt.Sprint(i))
		_, out := call(t, cs, contract.ToolEditNoteTab, fmt.Sprintf(`{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k%d","operation":"replace_text","text":%q}`, i, text))
		if out["error"] != nil {
			t.Fatalf("editor %d: %v", i, out)
		}
	}
	for _, cs := range sessions {
		cs.Close()
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	h, err := history.ReadFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	writer := map[int]string{} // session → the key of its write
	for _, c := range h.Runs[0].Calls {
		if !c.Stateless || c.Editor != "editor" {
			t.Errorf("a call not recorded as a stateless one of editor: %s", c)
		}
		if c.IsWrite() {
			if prev, ok := writer[c.Session]; ok {
				t.Errorf("session %d holds the writes %s and %s of two editors", c.Session, prev, c.Key)
			}
			writer[c.Session] = c.Key
		}
	}
	rep, err := check.Run(ctx, []*history.History{h}, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Agents) != 1 || len(rep.Agents[0].Sessions) != editors {
		t.Fatalf("agents %+v; want one, editor 1, in %d sessions", rep.Agents, editors)
	}
	for _, r := range rep.Checks {
		if r.Check != results.CheckStaleOverwrites {
			continue
		}
		if r.Verdict != results.CheckViolated || r.Violations != editors-1 || r.Judged != editors {
			t.Errorf("stale-overwrites: %s, %d of %d judged; want %d violations", r.Verdict, r.Violations, r.Judged, editors-1)
		}
		for _, v := range r.First {
			_, msg, _ := strings.Cut(v, ": ") // "h.jsonl, run serve: editor#5 edit_note_tab … overwrote editor#3 …"
			w, _, _ := strings.Cut(msg, " ")
			if _, over, ok := strings.Cut(msg, " overwrote "); !ok || strings.HasPrefix(over, w+" ") {
				t.Errorf("not an overwrite of another session's write: %s", v)
			}
		}
	}
}
