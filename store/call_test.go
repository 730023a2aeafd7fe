package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

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
