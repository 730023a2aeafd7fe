package contract

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestTabContentRoundTrip reads back every tab type's read_note_tab result as
// it was written.
func TestTabContentRoundTrip(t *testing.T) {
	for _, want := range []TabContent{
		{NoteID: "n", TabID: "t1", Type: TypeMarkdown, Label: "Notes", Version: "3", Text: "# hello"},
		{NoteID: "n", TabID: "t2", Type: TypeSlides, Label: "Deck", Version: "4", Slides: []Slide{{Title: "One", Body: "b"}}},
		{NoteID: "n", TabID: "t3", Type: TypeSheet, Label: "Data", Version: "5", Sheets: []Sheet{{SheetID: "s1", Name: "S", Cells: [][]any{{"a", 1.5, true, nil}}}}},
		{NoteID: "n", TabID: "t4", Type: TypeSources, Label: "Sources", Version: "6", Items: []Attachment{{ID: "a1", Title: "x", URL: "https://example.com", CreatedAt: "2026-01-01T00:00:00Z"}}},
	} {
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got TabContent
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s read back as %+v, want %+v", b, got, want)
		}
	}
}

func TestTabContentUnmarshalBadData(t *testing.T) {
	for _, in := range []string{
		`{"tab_id":"t1","type":"markdown","version":"1"}`,
		`{"tab_id":"t1","type":"markdown","data":{"text":"x"},"version":"1"}`,
		`{"tab_id":"t1","type":"slides","data":"x","version":"1"}`,
	} {
		var got TabContent
		err := json.Unmarshal([]byte(in), &got)
		if err == nil || !strings.Contains(err.Error(), "t1") {
			t.Errorf("%s: error %v, want one naming tab t1", in, err)
		}
	}
}
