package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/pgstore"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/store"
)

// jsonCaller is the JSON layer of one implementation: contract.Call on a
// store's session, or a raw call over MCP to serve.
type jsonCaller func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)

// What an LLM gets wrong is refused alike by every implementation, before
// anything is written: an operation without the field it needs (replace_text
// without text used to wipe the tab) is invalid_argument naming the field as
// a path; a counter version in another spelling than the one the Note
// reported ("01", " 1") is invalid_argument naming expected_version, not
// version 1, not a conflict.
func TestLLMTrapsRefusedEverywhere(t *testing.T) {
	ctx := context.Background()
	sqlite := &store.Target{InMemory: true}
	for name, open := range map[string]func(t *testing.T) jsonCaller{
		"sqlite":   func(t *testing.T) jsonCaller { return storeCaller(t, sqlite) },
		"postgres": func(t *testing.T) jsonCaller { return storeCaller(t, &pgstore.Target{URL: pgtest.URL(t)}) },
		"serve":    func(t *testing.T) jsonCaller { return serveCaller(t, sqlite) },
	} {
		t.Run(name, func(t *testing.T) {
			call := open(t)
			result := func(tool, args string) map[string]any {
				t.Helper()
				out, err := call(ctx, tool, json.RawMessage(args))
				if err != nil {
					t.Fatalf("%s %s: %v", tool, args, err)
				}
				var m map[string]any
				if err := json.Unmarshal(out, &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
			write := func(version, key string) map[string]any {
				return result("edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":"markdown","expected_version":%s,"idempotency_key":%q,"operation":"replace_text","text":"kept"}`, version, key))
			}
			if r := write("1", "first"); r["version"] != 2.0 {
				t.Fatalf("the first write: %v", r)
			}
			r := result("create_note_tab", `{"note_id":"note-1","expected_version":2,"idempotency_key":"sheet","tab_type":"sheet"}`)
			sheet := r["tab_id"]
			r = result("create_note_tab", `{"note_id":"note-1","expected_version":3,"idempotency_key":"slides","tab_type":"slides"}`)
			slides := r["tab_id"]
			for _, tc := range []struct{ tab, op, field string }{
				{"markdown", "replace_text", "/text"},
				{fmt.Sprint(slides), "replace_tab_data", "/data"},
				{fmt.Sprint(slides), "slide_add", "/title"},
				{fmt.Sprint(slides), "slides_add_outline", "/slides"},
				{fmt.Sprint(sheet), "sheet_set_range", "/values"},
			} {
				r := result("edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":4,"idempotency_key":"k-%s","operation":%q}`, tc.tab, tc.op, tc.op))
				if r["error"] != "invalid_argument" || r["field"] != tc.field {
					t.Errorf("%s without its field: %v; want invalid_argument at %s", tc.op, r, tc.field)
				}
			}
			for _, v := range []string{`"01"`, `" 1"`, `"+4"`, `"04"`, `"4 "`, `"-0"`} {
				if r := write(v, "v"+v); r["error"] != "invalid_argument" || r["field"] != "expected_version" {
					t.Errorf("expected_version %s: %v; want invalid_argument naming expected_version", v, r)
				}
			}
			if r := result("read_note_tab", `{"note_id":"note-1","tab_id":"markdown"}`); r["data"] != "kept" || r["version"] != 4.0 {
				t.Fatalf("the refused calls changed the Note: %v", r)
			}
			if r := write(`"4"`, "canonical"); r["version"] != 5.0 {
				t.Fatalf("the canonical version as a string: %v", r)
			}
			if r := result("edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":5,"idempotency_key":"empty","operation":"replace_text","text":""}`); r["version"] != 6.0 {
				t.Fatalf("an empty text, sent: %v", r)
			}
		})
	}
}

// storeCaller opens a run on tg with the Note note-1 and returns contract.Call
// on a session of it.
func storeCaller(t *testing.T, tg contract.Target) jsonCaller {
	ctx := context.Background()
	b, err := tg.Open(ctx, contract.RunSpec{Name: "traps"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
		return contract.Call(ctx, s, tool, args)
	}
}

// serveCaller serves a run of tg with serve and returns a raw call over MCP.
func serveCaller(t *testing.T, tg contract.Target) jsonCaller {
	ctx := context.Background()
	b, err := tg.Open(ctx, contract.RunSpec{Name: "traps", OneServer: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(ctx, b, serve.Options{})
	if err != nil {
		b.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := mcpclient.New(ctx, "in-memory", srv.InMemory, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	run, err := client.Open(ctx, contract.RunSpec{Name: "traps"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	if err := run.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	s, err := run.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s.(mcpclient.Caller).Call
}
