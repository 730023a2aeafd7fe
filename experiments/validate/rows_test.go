package validate

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
)

func TestValidateRowJSON(t *testing.T) {
	row := Row{Tool: "list_note_attachments", Payload: "kind sources, limit 100", Minimal: "ok",
		Full: "/limit: maximum 50", Args: json.RawMessage(`{"note_id":"n","limit":100}`)}
	want := []string{"tool", "payload", "minimal", "full", "args"}
	if got := simtest.ObjectKeysInOrder(t, row); !slices.Equal(got, want) {
		t.Errorf("Row keys %v, want %v", got, want)
	}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"args":{"note_id":"n","limit":100}`)) {
		t.Errorf("args not embedded as JSON: %s", b)
	}
	var back Row
	if err := json.Unmarshal(b, &back); err != nil || back.Full != row.Full || !bytes.Equal(back.Args, row.Args) {
		t.Errorf("round trip gave %+v, %v", back, err)
	}
}

func TestValidateRowKeysMatchPublished(t *testing.T) {
	exp := simtest.MustLookup(t, "validate")
	for _, p := range exp.Tables[0].Rows {
		row := Row{Tool: p.Key["tool"], Payload: p.Key["payload"]}
		if got, ok := exp.Match(results.RowKey(exp, row)); !ok || got.Key["payload"] != row.Payload {
			t.Errorf("%v: matched %v (found %v)", results.RowKey(exp, row), got.Key, ok)
		}
	}
}

func TestRowFigureOf(t *testing.T) {
	if v, _ := (Row{Minimal: "missing title"}).FigureOf("minimal"); v.Text != "missing title" {
		t.Errorf("minimal: %+v", v)
	}
}
