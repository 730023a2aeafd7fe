package results

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

func TestValidateRowJSON(t *testing.T) {
	row := ValidateRow{Tool: "list_note_attachments", Payload: "kind sources, limit 100", Minimal: "ok",
		Full: "/limit: maximum 50", Args: json.RawMessage(`{"note_id":"n","limit":100}`)}
	want := []string{"tool", "payload", "minimal", "full", "args"}
	if got := objectKeysInOrder(t, row); !slices.Equal(got, want) {
		t.Errorf("ValidateRow keys %v, want %v", got, want)
	}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"args":{"note_id":"n","limit":100}`)) {
		t.Errorf("args not embedded as JSON: %s", b)
	}
	var back ValidateRow
	if err := json.Unmarshal(b, &back); err != nil || back.Full != row.Full || !bytes.Equal(back.Args, row.Args) {
		t.Errorf("round trip gave %+v, %v", back, err)
	}
}

func TestValidateRowKeysMatchPublished(t *testing.T) {
	exp := mustLookup(t, "validate")
	for _, p := range exp.Tables[0].Rows {
		row := ValidateRow{Tool: p.Key["tool"], Payload: p.Key["payload"]}
		if got, ok := exp.Match(RowKey(exp, row)); !ok || got.Key["payload"] != row.Payload {
			t.Errorf("%v: matched %v (found %v)", RowKey(exp, row), got.Key, ok)
		}
	}
}
