package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecondWriteupBadInput(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "payload.txt")
	if err := os.WriteFile(notJSON, []byte("title: x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"refs", "--k", "0"}, "notesbench: --k: must be at least 1"},
		{[]string{"refs", "--k", "two"}, `notesbench: --k: "two" is not a whole number`},
		{[]string{"refs", "--trials", "0"}, "notesbench: --trials: must be at least 1"},
		{[]string{"refs", "--mix", "move=0.5,rename=0.6"}, "notesbench: --mix:"},
		{[]string{"refs", "--edits-max", "-1"}, "notesbench: --edits-max: must be 0 or more"},
		{[]string{"refs", "--seeds", "1-3"}, "notesbench: --seeds: refs takes one seed, not 3"},
		{[]string{"outline", "--window", "-4s"}, "notesbench: --window: must be positive"},
		{[]string{"outline", "--decks", "0"}, "notesbench: --decks: must be at least 1"},
		{[]string{"validate", "no_such_tool", notJSON}, `notesbench: ` + notJSON + `: unknown tool "no_such_tool"`},
		{[]string{"validate", "create_note_tab", notJSON}, "notesbench: " + notJSON + ": payload is not JSON"},
		{[]string{"validate", "create_note_tab", filepath.Join(dir, "missing.json")}, "notesbench: reading payload: stat"},
		{[]string{"validate", "create_note_tab"}, "notesbench: validate takes no arguments, or a tool and a file (got 1 argument)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
}

func TestValidateUserPayload(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"note_id":"n","expected_version":3,"tab_type":"markdown","slides":[{"title":"a","layout":"x"}]}`), 0o644)
	code, stdout, stderr := runCLI(t, "validate", "create_note_tab", bad, "--format", "csv")
	if code != 1 || !strings.Contains(stderr, "payload is invalid: 3 violations") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"violations,/idempotency_key,required,,idempotency_key is missing: the call must carry it,",
		"violations,/slides/0/layout,additionalProperties,,slides/0/layout is not an argument of this tool: leave it out,",
		"violations,/tab_type,enum,,\"tab_type is none of the values it takes (want slides, sheet)\"",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var in strings.Builder
	in.WriteString(`{"note_id":"n","expected_version":3,"idempotency_key":"k","tab_type":"sheet"}`)
	var out, errs strings.Builder
	if code := run([]string{"validate", "create_note_tab", "-", "--format", "json"}, strings.NewReader(in.String()), &out, &errs); code != 0 {
		t.Fatalf("valid payload on stdin: exit %d: %s", code, errs.String())
	}
	if !strings.Contains(out.String(), `"valid": true`) {
		t.Fatalf("output %s", out.String())
	}
}

func TestSecondWriteupGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"outline-small", []string{"outline", "--slides", "5", "--decks", "300", "--format", "markdown"}},
		{"refs-small", []string{"refs", "--trials", "150", "--format", "markdown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectGolden(t, tc.name, tc.args)
		})
	}
}

func TestIdempotencyBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "--drop", "1.5"}, "notesbench: --drop: 1.5 is not a probability"},
		{[]string{"create", "--drop", "-0.1"}, "notesbench: --drop: -0.1 is not a probability"},
		{[]string{"create", "--tabs", "0"}, "notesbench: --tabs: must be at least 1"},
		{[]string{"create", "--table", "c"}, `notesbench: --table: "c" is not one of a, b, both`},
		{[]string{"create", "--seeds", "3-1"}, "notesbench: --seeds: range 3-1 is empty"},
		{[]string{"sources", "--cites", "9", "--pages", "8"}, "notesbench: --cites: 9 is more than the 8 pages"},
		{[]string{"sources", "--sessions", "-1"}, "notesbench: --sessions: must be at least 1"},
		{[]string{"sources", "--drop", "1.5"}, "notesbench: --drop: 1.5 is not a probability"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
}

func TestIdempotencyGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"create-small", []string{"create", "--tabs", "20", "--format", "markdown"}},
		{"sources-small", []string{"sources", "--sessions", "40", "--format", "markdown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectGolden(t, tc.name, tc.args)
		})
	}
}
