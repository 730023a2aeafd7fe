package contract

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestToolsListShape(t *testing.T) {
	tools := Tools()
	want := []string{ToolListNoteTabs, ToolReadNoteTab, ToolReadSheetRange, ToolListNoteAttachments, ToolEditNoteTab, ToolCreateNoteTab, ToolAddNoteSource}
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
		if write && !(slices.Contains(sch.Required, "expected_version") && slices.Contains(sch.Required, "idempotency_key")) {
			t.Fatalf("%s does not require expected_version and idempotency_key: %v", tool.Name, sch.Required)
		}
	}
}

// A result object read back is the error it reports: ErrorOf inverts ResultOf.
func TestResultRoundTrip(t *testing.T) {
	for _, err := range []error{
		&ConflictError{Current: "7"},
		&ConflictError{Current: "2026-11-06T09:00:00.005Z"},
		&NotFoundError{Field: "tab_id", ID: "slides-9-zz"},
		&InvalidArgumentError{Field: "url", Message: `"x" has no scheme (want http or https)`},
		&SchemaError{Violations: []Violation{{Path: "/slides", Keyword: "maxItems", Message: "20"}}},
	} {
		res, ok := ResultOf(err)
		if !ok {
			t.Fatalf("%v: not a contract outcome", err)
		}
		back := ErrorOf(res)
		if back == nil || back.Error() != err.Error() {
			t.Fatalf("%v → %s → %v", err, res, back)
		}
	}
	if _, ok := ResultOf(errors.New("database is locked")); ok {
		t.Fatal("a plain error became a result")
	}
	if ErrorOf(json.RawMessage(`{"version":3}`)) != nil {
		t.Fatal("a result that is not an error became one")
	}
}

// Arguments over MaxArgsBytes are refused before they are parsed: malformed
// JSON of that size gets the size error, not a parse error.
func TestValidateArgsSizeLimit(t *testing.T) {
	big := json.RawMessage("{" + strings.Repeat(" ", MaxArgsBytes))
	_, err := ValidateArgs("create_note_tab", big)
	var inv *InvalidArgumentError
	if !errors.As(err, &inv) || inv.Field != "arguments" || !strings.Contains(err.Error(), "more than the 4194304 a tool call may carry") {
		t.Fatalf("arguments of %d bytes: %v", len(big), err)
	}
	if _, err := ValidateArgs("create_note_tab", json.RawMessage("{"+strings.Repeat(" ", MaxArgsBytes-2)+"}")); err != nil {
		t.Fatalf("arguments of exactly MaxArgsBytes: %v", err)
	}
	many := json.RawMessage(`{"slides":[` + strings.Repeat("1,", MaxArgsValues) + `1]}`)
	if _, err := ValidateArgs("create_note_tab", many); !errors.As(err, &inv) || !strings.Contains(err.Error(), "over 100000 JSON values") {
		t.Fatalf("arguments of %d values: %v", MaxArgsValues+3, err)
	}
	if err := CheckArgsSize([]byte(`{"slides":[` + strings.Repeat("1,", MaxArgsValues-4) + `1]}`)); err != nil {
		t.Fatalf("arguments of MaxArgsValues values: %v", err)
	}
}
