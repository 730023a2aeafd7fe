package mcpclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/store"
)

// A raw call's arguments reach the server as they are: an empty note_id is
// not turned into the run's prefix, so the server refuses it as the embedded
// store does, rather than answering about a Note of that name.
func TestEmptyNoteIDReachesTheServer(t *testing.T) {
	b := openNote(t, inMemory(t, contract.Variant{}), "empty")
	s := sessionT(t, b)
	st, err := store.Open(store.InMemory, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emb, err := st.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	for _, tc := range []struct{ tool, args string }{
		{contract.ToolListNoteTabs, `{"note_id":""}`},
		{contract.ToolReadNoteTab, `{"note_id":"","tab_id":"markdown"}`},
		{contract.ToolEditNoteTab, `{"note_id":"","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"x"}`},
	} {
		got, err := s.(Caller).Call(ctx, tc.tool, json.RawMessage(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		want, err := contract.Call(ctx, emb, tc.tool, json.RawMessage(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if !jsonSame(got, want) {
			t.Errorf("%s %s over MCP: %s\nembedded: %s", tc.tool, tc.args, got, want)
		}
	}
	// The typed path is the same path.
	_, err = s.ListNoteTabs(ctx, "")
	var se *contract.SchemaError
	if !asSchemaError(err, &se) || se.Violations[0].Path != "/note_id" || se.Violations[0].Keyword != "minLength" {
		t.Fatalf("typed call with no Note: %v", err)
	}
}

func asSchemaError(err error, se **contract.SchemaError) bool {
	e, ok := err.(*contract.SchemaError)
	*se = e
	return ok
}

func jsonSame(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// rewrite maps the top-level note_id of an object and nothing else; in a
// result also the id of a not_found about a note_id and the ID in its
// message. What it cannot read as an object it returns as it is.
func TestRewrite(t *testing.T) {
	toServer := func(id string) string { return "run." + id }
	toClient := func(id string) string { return strings.TrimPrefix(id, "run.") }
	for _, tc := range []struct {
		in     string
		result bool
		want   string
	}{
		{`{"note_id":"n1","tab_id":"markdown"}`, false, `{"note_id":"run.n1","tab_id":"markdown"}`},
		{` { "tab_id" : "t", "note_id" : "n1" } `, false, ` { "tab_id" : "t", "note_id" : "run.n1" } `},
		{`{"note\u005fid":"n1"}`, false, `{"note\u005fid":"run.n1"}`},
		{`{"data":{"note_id":"n1"},"note_id":"n\"2"}`, false, `{"data":{"note_id":"n1"},"note_id":"run.n\"2"}`},
		{`{"note_id":""}`, false, `{"note_id":""}`},
		{`{"note_id":7}`, false, `{"note_id":7}`},
		{`["note_id","n1"]`, false, `["note_id","n1"]`},
		{`{"note_id":"n1"`, false, `{"note_id":"n1"`},
		{`{"note_id":"n1"} x`, false, `{"note_id":"n1"} x`},
		{`{"error":"not_found","field":"note_id","id":"run.n9","message":"note_id: \"run.n9\" not found"}`, true,
			`{"error":"not_found","field":"note_id","id":"n9","message":"note_id: \"n9\" not found"}`},
		{`{"error":"not_found","field":"tab_id","id":"run.t","note_id":"run.n1"}`, true, `{"error":"not_found","field":"tab_id","id":"run.t","note_id":"n1"}`},
	} {
		mapID := toServer
		if tc.result {
			mapID = toClient
		}
		if got := string(rewrite(json.RawMessage(tc.in), mapID, tc.result)); got != tc.want {
			t.Errorf("rewrite(%s) = %s\nwant %s", tc.in, got, tc.want)
		}
	}
}
