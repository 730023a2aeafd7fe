package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/results"
)

// Bad input to a client audit: one line naming the flag, exit 2, nothing
// run.
func TestClientAuditBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--client", ""}, "--client: empty: give a value, or leave the flag out"},
		{[]string{"--client", "  "}, "--client: names no driver command"},
		{[]string{"--client", "node d.mjs {serve}", "--faults", "cut-stream"}, "--faults: cut-stream is not made over stdio (a driver whose library starts {serve})"},
		{[]string{"--client", "node d.mjs", "--faults", "kill"}, "--faults: kill is not made over HTTP (a driver that reaches $NOTESBENCH_SERVER_URL)"},
		{[]string{"--client", "d", "--target", "stdio:x"}, "--target: audits a server; --client audits a client against notesbench's own server"},
		{[]string{"--client", "d", "--budget", "full"}, "--budget: audits a server; --client audits a client against notesbench's own server"},
		{[]string{"--client", "d", "--allow", "duplicate"}, "--allow: audits a server; --client audits a client against notesbench's own server"},
		{[]string{"--client", "d", "--out", "/dev/full"}, "--out: /dev/full is a device, not a folder"},
		{[]string{"--client", "d", "--format", "csv"}, `--format: unknown format "csv" (want table, markdown, json or html)`},
		{[]string{"--client", "d", "--faults", "lose-reply,typo"}, `--faults: unknown fault "typo" (faults: all, lose-reply, cut-stream, 503-before, 502-after, slow-reply, kill)`},
		{[]string{"--client", "d", "--faults", ""}, "--faults: empty: give a value, or leave the flag out (default all)"},
		{[]string{"--client", "d", "--faults", "cut-stream,,slow-reply"}, `--faults: an empty fault name in "cut-stream,,slow-reply" (faults: all, lose-reply, cut-stream, 503-before, 502-after, slow-reply, kill)`},
		{[]string{"--client", "d", "--lines", "0"}, "--lines: is 0: a run appends 1 to 1000 lines"},
		{[]string{"--client", "d", "--lines", "9223372036854775807"}, "--lines: is 9223372036854775807: a run appends 1 to 1000 lines"},
		{[]string{"--client", "d", "--lines", "3", "--hits", "4"}, "--hits: is 4: a fault hits 1 to --lines (3) writes"},
		{[]string{"--client", "d", "--hold", "0s"}, "--hold: is 0s: it must be above 0 and at most 30m0s"},
		{[]string{"--client", "d", "--slow", "-1s"}, "--slow: is -1s: it must be above 0 and at most 30m0s"},
		{[]string{"--client", "d", "--run-timeout", "0s"}, "--run-timeout: is 0s: it must be above 0"},
		{[]string{"--lines", "5"}, "--lines: audits a client: give --client too"},
		{[]string{"--target", "embedded", "--key-reuse", "refuse"}, "--key-reuse: audits a client: give --client too"},
		{[]string{"--client", "d", "--key-reuse", "ignore"}, `--key-reuse: unknown key reuse "ignore" (want replay or refuse)`},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"audit"}, tc.args...)...)
		if code != 2 || stdout != "" || stderr != "notesbench: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// A driver that says every write was made, and makes none, fails the
// audit (exit 1) with each line told written but missing, under every
// fault; the JSON is the result.
func TestClientAuditOfADriverThatWritesNothing(t *testing.T) {
	driver := `for i in 1 2; do echo "{\"line\": $i, \"tool\": \"edit_note_tab\", \"idempotency_key\": \"k$i\", \"told\": \"ok\"}"; done`
	code, stdout, stderr := runCLI(t, "audit", "--client", driver, "--lines", "2", "--format", "json")
	if code != 1 || !strings.Contains(stderr, "failed: 12 anomalous lines") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var a results.ClientAudit
	if err := json.Unmarshal([]byte(stdout), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Runs) != 6 {
		t.Fatalf("%d runs, want 6", len(a.Runs))
	}
	out := filepath.Join(t.TempDir(), "client-audit")
	code, page, _ := runCLI(t, "audit", "--client", driver, "--lines", "2", "--faults", "lose-reply", "--hold", "1s", "--format", "html", "--out", out)
	for _, name := range []string{"audit.md", "audit.json", "audit.html"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || len(b) == 0 {
			t.Errorf("--out %s: %v", name, err)
		}
	}
	if code != 1 || !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, "failed: 4 anomalous lines") ||
		!strings.Contains(page, "told it was written, but missing") || strings.Contains(page, "<script") {
		t.Errorf("the page (exit %d):\n%s", code, page)
	}
	for _, r := range a.Runs {
		if r.OKButMissing != 2 || r.Requests != 0 || r.Error != "" || len(r.Proofs) != 2 {
			t.Errorf("%s: %+v", r.Fault, r)
		}
	}
}
