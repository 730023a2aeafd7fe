package ext

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// The tools: describe and create_note, then the person's actions in
// PersonTools order; every name with the prefix, every description saying
// it is no part of the contract, every schema compiled.
func TestTools(t *testing.T) {
	var names, person []string
	for _, tool := range Tools() {
		names = append(names, tool.Name)
		if tool.Person {
			person = append(person, tool.Name)
		}
		if !Is(tool.Name) || !strings.HasSuffix(tool.Description, NotContract) {
			t.Errorf("%s: %q", tool.Name, tool.Description)
		}
		if err := Decode(tool.Name, json.RawMessage(`{"unknown":1}`), &struct{}{}); err == nil {
			t.Errorf("%s takes an unknown argument", tool.Name)
		}
	}
	if !slices.Equal(person, PersonTools) || names[0] != ToolDescribe || names[1] != ToolCreateNote || len(names) != 7 {
		t.Fatalf("tools %v, person %v", names, person)
	}
	if Is("list_note_tabs") {
		t.Fatal("a contract tool counted as an extension")
	}
}

// Decode checks the arguments against the schema first: every violation,
// named by its path; then decodes them.
func TestDecode(t *testing.T) {
	var m MoveTabRequest
	err := Decode(ToolMoveTab, json.RawMessage(`{"note_id":"n","tab_id":"t"}`), &m)
	var se *contract.SchemaError
	if !errors.As(err, &se) || se.Error() != "/position: required" {
		t.Fatalf("%v", err)
	}
	err = Decode(ToolMoveTab, json.RawMessage(`{"note_id":"","tab_id":"t","position":-1,"extra":true}`), &m)
	if !errors.As(err, &se) || se.Error() != "/extra: additionalProperties false; /note_id: minLength 1; /position: minimum 0" {
		t.Fatalf("%v", err)
	}
	if err := Decode(ToolMoveTab, json.RawMessage(`{"note_id":"n","tab_id":"t","position":2}`), &m); err != nil || m != (MoveTabRequest{"n", "t", 2}) {
		t.Fatalf("%+v %v", m, err)
	}
	var inv *contract.InvalidArgumentError
	if err := Decode("notesbench_nothing", nil, &m); !errors.As(err, &inv) || inv.Field != "tool" {
		t.Fatalf("%v", err)
	}
}
