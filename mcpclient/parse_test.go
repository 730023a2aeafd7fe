package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		command []string
		url     string
	}{
		{"stdio:notesbench serve --db x.db", []string{"notesbench", "serve", "--db", "x.db"}, ""},
		{`stdio:my-server --name "two words" 'it''s' a\ b`, []string{"my-server", "--name", "two words", "its", "a b"}, ""},
		{"http://127.0.0.1:8765/mcp", nil, "http://127.0.0.1:8765/mcp"},
		{"https://notes.example/mcp", nil, "https://notes.example/mcp"},
	} {
		got, err := Parse(tc.in)
		if err != nil || !reflect.DeepEqual(got.Command, tc.command) || got.URL != tc.url || got.Raw != tc.in {
			t.Errorf("%s: %+v %v", tc.in, got, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"stdio:", `malformed target "stdio:": no command after stdio:`},
		{`stdio:server "open`, `malformed target "stdio:server \"open": unterminated " quote`},
		{`stdio:server \`, `malformed target "stdio:server \\": a backslash ends the command`},
		{"http://", `malformed target "http://": no host`},
		{"http://127.0.0.1:/mcp", `malformed target "http://127.0.0.1:/mcp": port "" is not 1 to 65535`},
		{"http://h:99999999999/mcp", `malformed target "http://h:99999999999/mcp": port "99999999999" is not 1 to 65535`},
		{"ws://127.0.0.1:1/mcp", `malformed target "ws://127.0.0.1:1/mcp": unknown kind`},
		{"", `malformed target "": empty`},
	} {
		_, err := Parse(tc.in)
		want := tc.want + " (want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH)"
		if err == nil || err.Error() != want || !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: %v\nwant %s", tc.in, err, want)
		}
	}
}

// serverOf serves the contract's tools, changed by edit, with handlers that
// answer nothing useful: enough for Dial's check.
func serverOf(t *testing.T, edit func([]contract.Tool) []contract.Tool) Dialer {
	s := mcp.NewServer(&mcp.Implementation{Name: "other"}, nil)
	for _, ct := range edit(slices.Clone(contract.Tools())) {
		s.AddTool(&mcp.Tool{Name: ct.Name, InputSchema: ct.InputSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	return func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err == nil {
			t.Cleanup(func() { ss.Close() })
		}
		return ct, err
	}
}

func TestToolsCheck(t *testing.T) {
	// A server with only the read and the write: race may run on it, create
	// may not, and the refusal names the tools missing and the tools listed.
	lacks, err := New(ctx, "other", serverOf(t, func(ts []contract.Tool) []contract.Tool {
		return []contract.Tool{ts[1], ts[4]}
	}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lacks.Close()
	if err := lacks.Require("race", contract.CapRead, contract.CapWrite); err != nil {
		t.Errorf("race on a server with read_note_tab and edit_note_tab: %v", err)
	}
	if err := lacks.Require("create", contract.CapCreate, contract.CapList); err == nil ||
		err.Error() != "target other lacks the tools create_note_tab, list_note_tabs, which create needs; it lists edit_note_tab, read_note_tab" {
		t.Errorf("%v", err)
	}
	optional := serverOf(t, func(ts []contract.Tool) []contract.Tool {
		var schema map[string]any
		json.Unmarshal(ts[4].InputSchema, &schema)
		schema["required"] = []string{"note_id", "tab_id", "operation"}
		ts[4].InputSchema, _ = json.Marshal(schema)
		return ts
	})
	want := "target other: tool edit_note_tab differs from the contract's: expected_version is not required"
	if _, err := New(ctx, "other", optional, Options{}); err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	tg, err := New(ctx, "other", optional, Options{LenientSchemas: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if got := strings.Join(tg.SchemaProblems(), "; "); got != "edit_note_tab: expected_version is not required; edit_note_tab: idempotency_key is not required" {
		t.Fatalf("problems %s", got)
	}
	if err := tg.Require("refs", contract.CapPerson); err == nil || !strings.HasPrefix(err.Error(), "target other lacks the tools notesbench_move_tab, notesbench_rename_tab, notesbench_add_tab, notesbench_set_cells, notesbench_set_text, which refs needs; it lists add_note_source, create_note_tab,") {
		t.Fatalf("%v", err)
	}
	b, err := tg.Open(ctx, contract.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CreateNote(ctx, "note-1"); err == nil || err.Error() != "target other offers no notesbench_create_note: name an existing, fresh Note to run on" {
		t.Fatalf("%v", err)
	}
	if _, err := tg.Open(ctx, contract.RunSpec{Variant: contract.Variant{Guard: contract.GuardNote}}); err == nil ||
		!strings.Contains(err.Error(), "does not say which contract variant it serves") {
		t.Fatalf("%v", err)
	}
}
