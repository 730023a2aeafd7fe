package store

import (
	"encoding/json"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// The hand-written JSON of an edit's result is byte for byte json.Marshal's,
// since a replay returns what was stored.
func TestMarshalResultIsJSONMarshal(t *testing.T) {
	strs := []string{"", "note-1", "markdown", "slides-9-mh8z1k2a", "text: 200 characters", `a"b`, `a\b`, "a<b>&c",
		"tab\there", "line\nbreak", "é", "\u2028", "\xff", "\x7f", "~ !#$%'()*+,-./:;=?@[]^_`{|}"}
	versions := []contract.Version{"1", "42", "1762419600000", "1762419600000123-a1b2c3", "0x1", `"q"`, "<v>", "", "12a"}
	for _, s := range strs {
		for _, v := range versions {
			for _, replayed := range []bool{false, true} {
				for _, r := range []contract.EditResult{
					{NoteID: s, TabID: "markdown", Version: v, Changed: "text: 3 characters", Replayed: replayed},
					{NoteID: "note-1", TabID: s, Version: v, Changed: s, Replayed: replayed},
				} {
					checkMarshal(t, r)
				}
			}
		}
	}
	if _, ok := appendEditResult(nil, contract.EditResult{NoteID: "note-1", TabID: "markdown", Version: "7", Changed: "text: 1 characters"}); !ok {
		t.Fatal("a plain result was not written by hand")
	}
}

func FuzzMarshalResult(f *testing.F) {
	f.Add("note-1", "markdown", "12", "text: 5 characters", false)
	f.Add("n<", `t"`, "1762419600000123-a1b2c3", "\xff", true)
	f.Fuzz(func(t *testing.T, note, tab, version, changed string, replayed bool) {
		checkMarshal(t, contract.EditResult{NoteID: note, TabID: tab, Version: contract.Version(version), Changed: changed, Replayed: replayed})
	})
}

func checkMarshal(t *testing.T, r contract.EditResult) {
	t.Helper()
	want, wantErr := json.Marshal(r)
	got, err := marshalResult(r)
	if (err != nil) != (wantErr != nil) || got != string(want) {
		t.Fatalf("%+v: got %s (%v), json.Marshal %s (%v)", r, got, err, want, wantErr)
	}
}
