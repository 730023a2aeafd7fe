package serve

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// syncBuffer is a buffer safe for concurrent writes and reads, such as a
// server process's stderr read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const fuzzPingID = "fuzz-ping-7f3a"

// FuzzStdio sends the server, over stdio after an initialize, whatever lines
// the fuzzer makes (frames, JSON-RPC messages, tool calls and their
// arguments), then a ping, then ends the input. Whatever came before, the
// server must answer the ping, write nothing but JSON-RPC 2.0 responses, one
// a line, and return cleanly at the end of its input.
//
//	go test -run '^$' -fuzz FuzzStdio -fuzztime 60s ./serve
func FuzzStdio(f *testing.F) {
	for _, seed := range []string{
		"not json",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping","params":NaN}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"edit_note_tab","arguments":{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"x"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"edit_note_tab","arguments":{"note_id":"note-1","tab_id":"markdown","expected_version":"01","idempotency_key":"k2","operation":"replace_text"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_note_tab","arguments":{"note_id":"note-1","expected_version":2,"idempotency_key":"c","tab_type":"slides","slides":[{"title":"a"}]}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"notesbench_set_cells","arguments":{"note_id":"note-1","tab_id":"x","values":[[1]]}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_sheet_range","arguments":[1,2]}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"x"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
		`{"jsonrpc":"2.0","id":11,"result":{}}`,
		`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"list_note_tabs","arguments":{"note_id":"` + strings.Repeat("n", 3000) + `"}}}` + "\n\n" + `{"jsonrpc":"2.0","id":13,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":14,"method":"ping","params":{"a":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`,
	} {
		f.Add([]byte(seed))
	}
	srv := newServer(f, contract.Variant{}, Options{Extensions: ExtensionsAll})
	closeOnCleanup(f, srv)
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte(fuzzPingID)) {
			return // the fuzzer's own call with the ping's ID would take its answer
		}
		in := `{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			string(data) + "\n" +
			`{"jsonrpc":"2.0","id":"` + fuzzPingID + `","method":"ping"}` + "\n"
		var out syncBuffer
		served := make(chan error, 1)
		go func() {
			served <- srv.Serve(ctx, &StdioTransport{Reader: strings.NewReader(in), Writer: &out, MaxLine: 1 << 16})
		}()
		select {
		case err := <-served:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("Serve did not return within a minute of the end of its input\n%s", out.String())
		}
		pinged := false
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			var r map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("the server wrote a line that is no JSON object: %q", line)
			}
			_, hasResult := r["result"]
			_, hasError := r["error"]
			_, hasID := r["id"]
			if string(r["jsonrpc"]) != `"2.0"` || !hasID || hasResult == hasError {
				t.Fatalf("the server wrote a line that is no JSON-RPC 2.0 response: %q", line)
			}
			if string(r["id"]) == `"`+fuzzPingID+`"` {
				pinged = hasResult
			}
		}
		if !pinged {
			t.Fatalf("the ping after the fuzzer's lines got no answer:\n%.2000s", out.String())
		}
	})
}
