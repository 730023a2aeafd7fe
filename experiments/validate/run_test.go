package validate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
)

func TestRunValidateVerdicts(t *testing.T) {
	rows := simtest.MustRun(t, Default()).Rows
	want := []Row{
		{Tool: "edit_note_tab", Payload: "operation slide_add, title, body",
			Minimal: "ok", Full: "ok"},
		{Tool: "edit_note_tab", Payload: "operation slide_add, title, index 0",
			Minimal: "unexpected index", Full: "/index: additionalProperties false"},
		{Tool: "edit_note_tab", Payload: "operation slides_add, slides [{title}]",
			Minimal: "operation: not in enum",
			Full:    "/operation: enum (want replace_text, replace_tab_data, slide_add, slides_add_outline, sheet_set_range)"},
		{Tool: "edit_note_tab", Payload: "operation slides_add_outline, a slide with bullets",
			Minimal: "slides[0]: unexpected bullets", Full: "/slides/0/bullets: additionalProperties false"},
		{Tool: "create_note_tab", Payload: "tab_type slides, 21 slides",
			Minimal: "slides: maxItems 20", Full: "/slides: maxItems 20"},
		{Tool: "create_note_tab", Payload: "tab_type markdown",
			Minimal: "tab_type: not in enum", Full: "/tab_type: enum (want slides, sheet)"},
		{Tool: "add_note_source", Payload: "url only",
			Minimal: "missing title", Full: "/title: required"},
		{Tool: "list_note_attachments", Payload: "kind sources, limit 100",
			Minimal: "ok", Full: "/limit: maximum 50"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	pub, ok := results.Lookup("validate")
	if !ok {
		t.Fatal("no published validate table")
	}
	for i, w := range want {
		got := rows[i]
		if got.Tool != w.Tool || got.Payload != w.Payload || got.Minimal != w.Minimal || got.Full != w.Full {
			t.Errorf("row %d:\n got %s | %s | %s | %s\nwant %s | %s | %s | %s", i+1,
				got.Tool, got.Payload, got.Minimal, got.Full, w.Tool, w.Payload, w.Minimal, w.Full)
		}
		if !json.Valid(got.Args) {
			t.Errorf("row %d: args %s are not JSON", i+1, got.Args)
		}
		// Every row lines up with its published row, and our minimal verdict
		// reads as the published one.
		p, ok := pub.Match(results.RowKey(pub, got))
		if !ok {
			t.Errorf("row %d: no published row for %v", i+1, results.RowKey(pub, got))
			continue
		}
		if f, _ := p.Figure("minimal"); results.JudgeText("minimal", "", got.Minimal, f).Outcome != results.Consistent {
			t.Errorf("row %d: minimal %q, published %q", i+1, got.Minimal, f.Text())
		}
		if f, ok := p.Figure("full"); ok && results.JudgeText("full", "", got.Full, f).Outcome != results.Consistent {
			t.Errorf("row %d: full %q, published %q", i+1, got.Full, f.Text())
		}
	}
}

// TestRunValidateIDsFilledIn checks that the payloads carry every id a model
// sends, so that no verdict is about a missing id.
func TestRunValidateIDsFilledIn(t *testing.T) {
	rows := simtest.MustRun(t, Default()).Rows
	for _, r := range rows {
		for _, v := range mustValidate(t, r.Tool, r.Args).Violations {
			for _, id := range []string{"note_id", "tab_id", "expected_version", "idempotency_key"} {
				if v.Path == "/"+id {
					t.Errorf("%s %q: the verdict names %s", r.Tool, r.Payload, id)
				}
			}
		}
	}
}

func mustValidate(t *testing.T, tool string, payload []byte) PayloadResult {
	t.Helper()
	res, err := CheckPayload(tool, payload)
	if err != nil {
		t.Fatalf("CheckPayload(%s, %s): %v", tool, payload, err)
	}
	return res
}

func TestValidatePayloadMaximumOnlyInFull(t *testing.T) {
	res := mustValidate(t, "list_note_attachments", []byte(`{"note_id":"n","kind":"sources","limit":100}`))
	if res.Minimal != "ok" || res.Valid || len(res.Violations) != 1 ||
		res.Violations[0].Path != "/limit" || res.Violations[0].Keyword != "maximum" {
		t.Errorf("limit 100: minimal %q, full %+v, want the minimal validator to pass it and the full one to fail it on maximum",
			res.Minimal, res.Violations)
	}
}

func TestValidatePayloadEveryViolation(t *testing.T) {
	res := mustValidate(t, "add_note_source", []byte(`{"url":"ftp://example.org","extra":1}`))
	var got []string
	for _, v := range res.Violations {
		got = append(got, v.Path+" "+v.Keyword)
	}
	want := "/expected_version required; /idempotency_key required; /note_id required; /title required; /url pattern"
	if strings.Join(got, "; ") != want || res.Valid {
		t.Errorf("violations %q, want %q", strings.Join(got, "; "), want)
	}
	// The minimal validator sees neither the pattern nor the extra field
	// (add_note_source does not close its properties).
	if wantMin := "missing note_id; missing expected_version; missing idempotency_key; missing title"; res.Minimal != wantMin {
		t.Errorf("minimal %q, want %q", res.Minimal, wantMin)
	}
}

func TestValidatePayloadValid(t *testing.T) {
	res := mustValidate(t, "create_note_tab",
		[]byte(`{"note_id":"n","expected_version":"2026-11-09T09:00:00.000Z","idempotency_key":"k","tab_type":"slides","slides":[{"title":"t","body":"b","notes":"n"}]}`))
	if !res.Valid || res.Full != "ok" || res.Minimal != "ok" || res.Violations == nil || len(res.Violations) != 0 {
		t.Errorf("a valid create: %+v", res)
	}
	if b, err := json.Marshal(res); err != nil || !strings.Contains(string(b), `"violations":[]`) {
		t.Errorf("a valid result marshals as %s, %v: want an empty violations list", b, err)
	}
}

func TestMinimalValidatorFollowsRef(t *testing.T) {
	for _, tc := range []struct {
		tool, payload, want string
	}{
		// edit_note_tab's slide items are a $ref to #/$defs/slide.
		{"edit_note_tab", `{"note_id":"n","tab_id":"t","expected_version":1,"idempotency_key":"k","operation":"slides_add_outline","slides":[{"title":"a"},{"body":"b","layout":"two-column"}]}`,
			"slides[1]: missing title; slides[1]: unexpected layout"},
		{"edit_note_tab", `{"note_id":"n","tab_id":"t","expected_version":1,"idempotency_key":"k","operation":"slides_add_outline","slides":[]}`,
			"slides: minItems 1"},
		{"create_note_tab", `{"note_id":"n","expected_version":1,"idempotency_key":"k","tab_type":"sheet","slides":[{"title":"a","bullets":[]}]}`,
			"slides[0]: unexpected bullets"},
		// Nothing but the five keywords counts: a wrong type passes.
		{"edit_note_tab", `{"note_id":7,"tab_id":"t","expected_version":true,"idempotency_key":"","operation":"replace_text","text":1}`,
			"ok"},
	} {
		if got := mustValidate(t, tc.tool, []byte(tc.payload)).Minimal; got != tc.want {
			t.Errorf("%s %s: minimal %q, want %q", tc.tool, tc.payload, got, tc.want)
		}
	}
}

func TestValidatePayloadErrors(t *testing.T) {
	for _, tc := range []struct {
		tool, payload, want string
	}{
		{"edit_tab", `{}`, `unknown tool "edit_tab" (want one of list_note_tabs, read_note_tab, read_sheet_range, list_note_attachments, edit_note_tab, create_note_tab, add_note_source)`},
		{"edit_note_tab", `{"operation": "slide_add",`, "payload is not JSON: unexpected end of JSON input"},
		{"edit_note_tab", `operation=slide_add`, "payload is not JSON: invalid character 'o' looking for beginning of value"},
		{"edit_note_tab", `{} {}`, "payload is not JSON: invalid character '{' after top-level value"},
		{"edit_note_tab", " \n", "payload is empty, want a JSON object"},
		// Checked before the tool: two million tiny values made two million
		// violations.
		{"edit_tab", `{"slides":[` + strings.Repeat("1,", contract.MaxArgsValues) + `1]}`,
			"the payload has over 100,000 JSON values, more than a tool call may carry (the largest valid call has about 10,000)"},
	} {
		if _, err := CheckPayload(tc.tool, []byte(tc.payload)); err == nil || err.Error() != tc.want {
			t.Errorf("CheckPayload(%q, %q) = %v, want %q", tc.tool, tc.payload, err, tc.want)
		}
	}
	// A JSON value that is not an object is a violation, not an error.
	if res := mustValidate(t, "list_note_tabs", []byte(`[1]`)); res.Valid {
		t.Errorf("an array passed the full validator: %+v", res)
	}
}

func TestResolveRefsRejectsBadRefs(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"items":{"$ref":"#/definitions/slide"}}`, `$ref "#/definitions/slide": no such definition`},
		{`{"items":{"$ref":"#/$defs/a"},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, `$ref "#/$defs/b": the references go round in a circle`},
		{`{"items":{"$ref":"#/$defs/a"},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"required":["x"]}}}`, ""},
	} {
		var s minimalSchema
		if err := json.Unmarshal([]byte(tc.schema), &s); err != nil {
			t.Fatal(err)
		}
		err := resolveRefs(&s, &s, map[*minimalSchema]bool{})
		if (err == nil) != (tc.want == "") || (err != nil && err.Error() != tc.want) {
			t.Errorf("resolveRefs(%s) = %v, want %q", tc.schema, err, tc.want)
		}
		if err == nil {
			var faults []string
			checkMinimal(&s, []any{map[string]any{}}, "", &faults)
			if strings.Join(faults, "; ") != "[0]: missing x" {
				t.Errorf("a chain of refs checked as %q, want %q", faults, "[0]: missing x")
			}
		}
	}
}

// TestMinimalSchemasCoverEveryTool checks that the minimal validator read the
// same embedded tools/list the store validates against.
func TestMinimalSchemasCoverEveryTool(t *testing.T) {
	schemas, err := loadMinimalSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range contract.Tools() {
		if schemas[tool.Name] == nil {
			t.Errorf("no minimal schema for %s", tool.Name)
		}
	}
	if len(schemas) != len(contract.Tools()) {
		t.Errorf("%d minimal schemas for %d tools", len(schemas), len(contract.Tools()))
	}
}
