package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

func call(t *testing.T, c *Conn, tool, args string) map[string]any {
	t.Helper()
	raw, err := contract.Call(ctx, c, tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	return out
}

// TestCallBadInputChangesNothing sends every kind of bad call through the JSON
// layer and checks the result names the problem and the database is unchanged.
func TestCallBadInputChangesNothing(t *testing.T) {
	s, c := openTest(t, Options{})
	deck := mustCreate(t, c, contract.TypeSlides, "Deck")
	sheet := mustCreate(t, c, contract.TypeSheet, "Sheet")
	v := mustList(t, c).Version
	slides21 := make([]string, 21)
	for i := range slides21 {
		slides21[i] = fmt.Sprintf(`{"title":"s%d"}`, i)
	}
	rows101 := make([]string, 101)
	for i := range rows101 {
		rows101[i] = `["x"]`
	}
	edit := func(extra string) string {
		return fmt.Sprintf(`{"note_id":%q,"tab_id":"markdown","expected_version":%s,"idempotency_key":"k-bad",%s}`, note, v, extra)
	}
	cases := []struct {
		name, tool, args, errKind, field, inMessage string
	}{
		{"unknown tool", "delete_note", `{}`, "invalid_argument", "tool", `unknown tool "delete_note"`},
		{"malformed json", "edit_note_tab", `{"note_id":`, "invalid_argument", "arguments", "malformed JSON"},
		{"missing required", "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","idempotency_key":"k","operation":"replace_text","text":"x"}`, "invalid_argument", "/expected_version", "required"},
		{"wrong type", "edit_note_tab", edit(`"operation":"replace_text","text":7`), "invalid_argument", "/text", "type string (got number)"},
		{"enum", "edit_note_tab", edit(`"operation":"slides_add","slides":[{"title":"a"}]`), "invalid_argument", "/operation", "enum"},
		{"extra field", "edit_note_tab", edit(`"operation":"slide_add","title":"t","index":0`), "invalid_argument", "/index", "additionalProperties"},
		{"extra slide field", "edit_note_tab", edit(`"operation":"slides_add_outline","slides":[{"title":"a","bullets":["x"]}]`), "invalid_argument", "/slides/0/bullets", "additionalProperties"},
		{"21 slides", "create_note_tab", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","tab_type":"slides","slides":[%s]}`, v, strings.Join(slides21, ",")), "invalid_argument", "/slides", "maxItems 20"},
		{"markdown tab type", "create_note_tab", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","tab_type":"markdown"}`, v), "invalid_argument", "/tab_type", "enum"},
		{"limit 51", "list_note_attachments", `{"note_id":"note-1","kind":"sources","limit":51}`, "invalid_argument", "/limit", "maximum 50"},
		{"101-row read", "read_sheet_range", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"rows":101}`, sheet.TabID), "invalid_argument", "/rows", "maximum 100"},
		{"101-row write", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"sheet_set_range","values":[%s]}`, sheet.TabID, v, strings.Join(rows101, ",")), "invalid_argument", "/values", "maxItems 100"},
		{"ftp url", "add_note_source", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","title":"t","url":"ftp://example.org/a"}`, v), "invalid_argument", "/url", "pattern"},
		{"scheme-less url", "add_note_source", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","title":"t","url":"example.org/a"}`, v), "invalid_argument", "/url", "pattern"},
		{"missing title", "add_note_source", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","url":"https://example.org/report"}`, v), "invalid_argument", "/title", "required"},
		{"unknown note", "edit_note_tab", `{"note_id":"note-9","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"x"}`, "not_found", "note_id", `"note-9" not found`},
		{"unknown tab", "edit_note_tab", edit(`"operation":"replace_text","text":"x"`)[:0] + fmt.Sprintf(`{"note_id":"note-1","tab_id":"slides-9-zz","expected_version":%s,"idempotency_key":"k","operation":"replace_text","text":"x"}`, v), "not_found", "tab_id", `"slides-9-zz" not found`},
		{"unknown tab read", "read_note_tab", `{"note_id":"note-1","tab_id":"nope"}`, "not_found", "tab_id", "not found"},
		{"edit sources tab", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":"sources","expected_version":%s,"idempotency_key":"k","operation":"replace_text","text":"x"}`, v), "invalid_argument", "tab_id", "sources tabs cannot be edited"},
		{"edit files tab", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":"files","expected_version":%s,"idempotency_key":"k","operation":"replace_tab_data","data":{}}`, v), "invalid_argument", "tab_id", "files tabs cannot be edited"},
		{"operation on wrong tab", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"replace_text","text":"x"}`, deck.TabID, v), "invalid_argument", "operation", "does not apply to slides tab"},
		{"field of another operation", "edit_note_tab", edit(`"operation":"replace_text","text":"x","title":"t"`), "invalid_argument", "title", "not used by replace_text"},
		{"bad replace data", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"replace_tab_data","data":{"slides":[{"title":"a","layout":"x"}]}}`, deck.TabID, v), "invalid_argument", "data", "unknown field"},
		{"unknown sheet", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"sheet_set_range","sheet_id":"s9","values":[[1]]}`, sheet.TabID, v), "not_found", "sheet_id", "not found"},
		{"bad cursor", "list_note_attachments", `{"note_id":"note-1","cursor":"zzz"}`, "invalid_argument", "cursor", "not a cursor"},
		{"version not a counter", "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":"abc","idempotency_key":"k","operation":"replace_text","text":"x"}`, "invalid_argument", "expected_version", "want an integer"},
		{"stale version", "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"x"}`, "version_conflict", "", ""},
	}
	before := dump(t, s)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := call(t, c, tc.tool, tc.args)
			if out["error"] != tc.errKind {
				t.Fatalf("got %v, want error %s", out, tc.errKind)
			}
			if tc.errKind == "version_conflict" {
				if fmt.Sprint(out["current_version"]) != string(v) {
					t.Fatalf("current_version %v, want %s", out["current_version"], v)
				}
				return
			}
			if out["field"] != tc.field || !strings.Contains(fmt.Sprint(out["message"]), tc.inMessage) {
				t.Fatalf("got field %v message %q; want field %s containing %q", out["field"], out["message"], tc.field, tc.inMessage)
			}
		})
	}
	if after := dump(t, s); after != before {
		t.Fatalf("bad calls changed the database:\nbefore\n%s\nafter\n%s", before, after)
	}
}

func TestCallHappyPathAndReplay(t *testing.T) {
	_, c := openTest(t, Options{})
	out := call(t, c, "list_note_tabs", `{"note_id":"note-1"}`)
	if out["version"] != 1.0 || len(out["tabs"].([]any)) != 3 {
		t.Fatalf("list %v", out)
	}
	args := `{"note_id":"note-1","expected_version":1,"idempotency_key":"create-1","tab_type":"slides","label":"Plan","slides":[{"title":"Intro","body":"b","notes":"n"}]}`
	first := call(t, c, "create_note_tab", args)
	again := call(t, c, "create_note_tab", args)
	if again["replayed"] != true || again["tab_id"] != first["tab_id"] || first["replayed"] != nil {
		t.Fatalf("first %v, again %v", first, again)
	}
	read := call(t, c, "read_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q}`, first["tab_id"]))
	data := read["data"].(map[string]any)["slides"].([]any)
	if len(data) != 1 || read["version"] != 2.0 {
		t.Fatalf("read %v", read)
	}
	edit := call(t, c, "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":2,"idempotency_key":"e1","operation":"replace_text","text":"hi"}`)
	if edit["version"] != 3.0 || edit["changed"] != "text: 2 characters" {
		t.Fatalf("edit %v", edit)
	}
	src := call(t, c, "add_note_source", `{"note_id":"note-1","expected_version":3,"idempotency_key":"s1","title":"Report","url":"https://example.org/report"}`)
	if src["source_id"] != "source-1" {
		t.Fatalf("source %v", src)
	}
	page := call(t, c, "list_note_attachments", `{"note_id":"note-1","kind":"sources","limit":1}`)
	items := page["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["url"] != "https://example.org/report" || page["next_cursor"] != nil {
		t.Fatalf("page %v", page)
	}
}

func TestToolsListShape(t *testing.T) {
	tools := contract.Tools()
	want := []string{"list_note_tabs", "read_note_tab", "read_sheet_range", "list_note_attachments", "edit_note_tab", "create_note_tab", "add_note_source"}
	if len(tools) != len(want) {
		t.Fatalf("%d tools", len(tools))
	}
	for i, tool := range tools {
		if tool.Name != want[i] {
			t.Fatalf("tool %d is %s, want %s", i, tool.Name, want[i])
		}
		write := i >= 4
		scope := tool.SecuritySchemes[0].Scopes[0]
		if tool.Annotations.ReadOnlyHint == write || tool.Annotations.DestructiveHint != write ||
			(write && scope != "osfoundry:write") || (!write && scope != "osfoundry:read") {
			t.Fatalf("%s annotations %+v scope %s", tool.Name, tool.Annotations, scope)
		}
		var sch struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.InputSchema, &sch); err != nil {
			t.Fatal(err)
		}
		if write && !(contains(sch.Required, "expected_version") && contains(sch.Required, "idempotency_key")) {
			t.Fatalf("%s does not require expected_version and idempotency_key: %v", tool.Name, sch.Required)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func FuzzCall(f *testing.F) {
	for _, seed := range []struct{ tool, args string }{
		{"edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"x"}`},
		{"create_note_tab", `{"note_id":"note-1","expected_version":1,"idempotency_key":"k","tab_type":"slides","slides":[{"title":"a"}]}`},
		{"add_note_source", `{"note_id":"note-1","expected_version":1,"idempotency_key":"k","title":"t","url":"https://a.b/c"}`},
		{"read_sheet_range", `{"note_id":"note-1","tab_id":"sheet-1-x","rows":3}`},
		{"list_note_attachments", `{"note_id":"note-1","cursor":"after-3"}`},
		{"edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":"1","idempotency_key":"k","operation":"sheet_set_range","values":[[1,null]]}`},
		{"nope", `[]`},
		{"edit_note_tab", `{"note_id":"note-1","tab_id":"sheet-1-x","expected_version":1,"idempotency_key":"k","operation":"sheet_set_range","start_row":9223372036854775807,"values":[[1]]}`},
	} {
		f.Add(seed.tool, []byte(seed.args))
	}
	_, c := openTest(f, Options{})
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		raw, err := contract.Call(ctx, c, tool, args)
		if err != nil {
			t.Fatalf("store failure for %s %q: %v", tool, args, err)
		}
		if !json.Valid(raw) {
			t.Fatalf("invalid JSON result %q", raw)
		}
	})
}

// Huge start cells are refused, not overflowed: a write with them must neither
// panic nor leave the write lock held, so the next write on another connection
// lands.
func TestHugeStartCellsAreRefused(t *testing.T) {
	s, c := openTest(t, Options{})
	sheet := mustCreate(t, c, contract.TypeSheet, "S")
	const huge = 9223372036854775807
	for _, req := range []contract.EditRequest{
		{StartRow: huge, Values: [][]any{{"x"}}},
		{StartCol: huge, Values: [][]any{{"x"}}},
	} {
		req.NoteID, req.TabID, req.ExpectedVersion, req.IdempotencyKey, req.Operation = note, sheet.TabID, sheet.Version, key(), contract.OpSheetSetRange
		var bad *contract.InvalidArgumentError
		if _, err := c.EditNoteTab(ctx, req); !errors.As(err, &bad) {
			t.Fatalf("start %d/%d: %v, want an invalid argument", req.StartRow, req.StartCol, err)
		}
	}
	for _, args := range []string{
		fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"start_row":%d,"rows":2}`, sheet.TabID, uint64(huge)),
		fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"start_col":%d,"cols":2}`, sheet.TabID, uint64(huge)),
	} {
		if out := call(t, c, "read_sheet_range", args); out["error"] != "invalid_argument" {
			t.Fatalf("read %s: %v", args, out)
		}
	}
	other := mustConn(t, s)
	if _, err := replaceText(other, mustRead(t, other, "markdown").Version, "still writable"); err != nil {
		t.Fatalf("the store is wedged: %v", err)
	}
}

// A panic inside a write transaction rolls it back and releases the lock.
func TestPanicInsideTransactionRollsBack(t *testing.T) {
	s, c := openTest(t, Options{})
	before := dump(t, s)
	s.beforeCommit = func() error { panic("boom") }
	if _, err := replaceText(c, "1", "x"); err == nil || !strings.Contains(err.Error(), "panic inside a transaction") {
		t.Fatalf("err %v", err)
	}
	s.beforeCommit = nil
	if dump(t, s) != before {
		t.Fatal("a panicking write left traces")
	}
	if _, err := replaceText(mustConn(t, s), "1", "after"); err != nil {
		t.Fatalf("after the panic: %v", err)
	}
}

func TestNegativeVersionNamesTheField(t *testing.T) {
	_, c := openTest(t, Options{})
	out := call(t, c, "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":-1,"idempotency_key":"k","operation":"replace_text","text":"x"}`)
	if out["error"] != "invalid_argument" || out["field"] != "/expected_version" {
		t.Fatalf("%v", out)
	}
}
