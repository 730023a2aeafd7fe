//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// A result goes to a regular file or to a new one: a device, a named pipe or a
// socket is refused before anything runs. The writability check used to read
// the target, and waited for ever on a pipe nobody wrote to.
func TestOutRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "--out", fifo}, "notesbench: --out: " + fifo + " is not a regular file (a named pipe)"},
		{[]string{"validate", "--update-baseline", fifo}, "notesbench: --update-baseline: " + fifo + " is not a regular file (a named pipe)"},
		{[]string{"validate", "--baseline", fifo}, "notesbench: --baseline: " + fifo + " is not a regular file (a named pipe)"},
		{[]string{"validate", "--out", "/dev/null"}, "notesbench: --out: /dev/null is not a regular file (a device)"},
		{[]string{"bench", "--out", fifo}, "notesbench: --out: " + fifo + " is not a regular file (a named pipe)"},
		{[]string{"race", "--history", fifo}, "notesbench: --history: " + fifo + " is not a regular file (a named pipe)"},
		{[]string{"check", "--html", fifo, "h.jsonl"}, "notesbench: --html: " + fifo + " is not a regular file (a named pipe)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
}

// --db is checked before anything runs: one line naming the flag, exit 2.
func TestDBFolderCheckedFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"race", "--db", filepath.Join(file, "dbs"), "--seeds", "1", "--edits", "2"}, "notesbench: --db: " + file + " is not a folder"},
		{[]string{"bench", "--db", filepath.Join(file, "dbs"), "--writes", "2"}, "notesbench: --db: " + file + " is not a folder"},
	}
	if st, err := os.Stat("/proc"); err == nil && st.IsDir() {
		cases = append(cases,
			struct {
				args []string
				want string
			}{[]string{"race", "--db", "/proc", "--seeds", "1", "--edits", "2"}, "notesbench: --db: cannot write in /proc"},
			struct {
				args []string
				want string
			}{[]string{"tabs", "--db", "/proc/notesbench/dbs", "--seeds", "1", "--edits", "2"}, "notesbench: --db: cannot write in /proc"})
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
}

// A payload larger than a tool call may carry is refused before it is read
// whole or parsed: from a file by its size, from stdin past the limit.
func TestPayloadSizeLimit(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// 49 MB, sparse: used 4.7 GB of memory when it was parsed.
	if err := f.Truncate(49 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	expectUsageError(t, []string{"validate", "create_note_tab", big},
		"notesbench: "+big+": the payload is 51,380,224 bytes, more than the 4,194,304 a tool call may carry")

	over := strings.NewReader(`{"note_id":"` + strings.Repeat("n", contract.MaxArgsBytes) + `"}`)
	var stdout, stderr strings.Builder
	code := run([]string{"validate", "create_note_tab", "-"}, over, &stdout, &stderr)
	if code != 2 || !strings.HasPrefix(stderr.String(), "notesbench: -: the payload is more than the 4,194,304 bytes a tool call may carry") || stdout.Len() != 0 {
		t.Errorf("a payload over the limit on stdin: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}

	// Two million tiny values in 4 MB made two million violations and used
	// 2 GB of memory.
	many := filepath.Join(t.TempDir(), "many.json")
	os.WriteFile(many, []byte(`{"slides":[`+strings.Repeat("1,", contract.MaxArgsValues)+`1]}`), 0o644)
	expectUsageError(t, []string{"validate", "create_note_tab", many},
		"notesbench: "+many+": the payload has over 100,000 JSON values, more than a tool call may carry")
}

// validate TOOL FILE honours --out (the JSON result, whole or not at all) and
// refuses --baseline and --update-baseline, which it used to ignore silently.
func TestPayloadModeFlags(t *testing.T) {
	dir := t.TempDir()
	payload := filepath.Join(dir, "p.json")
	os.WriteFile(payload, []byte(`{"note_id":"n","expected_version":3,"idempotency_key":"k","tab_type":"sheet"}`), 0o644)
	out := filepath.Join(dir, "x.json")
	code, stdout, stderr := runCLI(t, "validate", "create_note_tab", payload, "--out", out, "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Config struct {
			Tool string `json:"tool"`
		} `json:"config"`
		Valid *bool `json:"valid"`
	}
	b, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(b, &res) != nil || res.Config.Tool != "create_note_tab" || res.Valid == nil || !*res.Valid {
		t.Errorf("--out holds %s (%v); stdout %s", b, err, stdout)
	}
	for _, flag := range []string{"--baseline", "--update-baseline"} {
		expectUsageError(t, []string{"validate", "create_note_tab", payload, flag, filepath.Join(dir, "b.json")},
			"notesbench: "+flag+": validate TOOL FILE checks one payload, which has no baseline")
	}
}
