package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// asNotesbench makes the test binary, started with it in its environment,
// behave as notesbench: how the crash test's children run under go test.
const asNotesbench = "NOTESBENCH_TEST_AS_NOTESBENCH"

func init() {
	if os.Getenv(asNotesbench) != "" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// A short crash run of the embedded store, notesbench serve over stdio (this
// test binary as notesbench): nothing lost, the database intact, the
// history written, with its kills, and clean when checked again.
func TestCrashCommand(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("kills its servers 6 times: internal/crash's short tests kill the store in -short")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	path := filepath.Join(t.TempDir(), "crash.jsonl")
	o := &crashOptions{app: a, kills: 3, synchronous: "normal,full", seed: 1, life: "5ms-40ms", timeout: time.Minute,
		format: formatFlag{"json", withCSV}, history: path, db: t.TempDir(), childEnv: childEnv}
	if err := runCrash(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var out results.CrashRecord
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Rows) != 2 {
		t.Fatalf("rows: %+v", out.Rows)
	}
	for _, r := range out.Rows {
		if r.Kills != 3 || r.Integrity != "ok" || r.LostAcknowledged != 0 || r.Acknowledged == 0 || r.Unreadable != "" {
			t.Errorf("run %+v", r)
		}
	}
	if !history.IsHistoryFile(path) {
		t.Fatal("no history written")
	}
	code, checked, checkErr := runCLI(t, "check", path)
	if code != 0 {
		t.Errorf("check of the crash history: exit %d\n%s%s", code, checked, checkErr)
	}
	h, err := history.ReadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	kills := 0
	for _, r := range h.Runs {
		for _, f := range r.Faults {
			if f.Kind == history.FaultKill && f.PID != 0 {
				kills++
			}
		}
	}
	if kills != 6 {
		t.Errorf("the history records %d kills, want 3 per run", kills)
	}
}

// childEnv makes the servers of the embedded store this test binary as
// notesbench, without the race detector's second at exit.
var childEnv = []string{asNotesbench + "=1", "GORACE=atexit_sleep_ms=0"}

// Bad input: one line naming the flag, exit 2, nothing started.
func TestCrashBadInput(t *testing.T) {
	dir := t.TempDir()
	precious := filepath.Join(dir, "notes.txt")
	os.WriteFile(precious, []byte("mine"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crash", "--kills", "0"}, "notesbench: --kills: must be at least 1"},
		{[]string{"crash", "--synchronous", "off"}, `notesbench: --synchronous: unknown synchronous setting "off"`},
		{[]string{"crash", "--synchronous", "full,full"}, "notesbench: --synchronous: full is listed twice"},
		{[]string{"crash", "--life", "40ms-5ms"}, "notesbench: --life: 40ms-5ms: minimum above maximum"},
		{[]string{"crash", "--timeout", "0s"}, "notesbench: --timeout: must be more than 0"},
		{[]string{"crash", "--format", "yaml"}, `notesbench: --format: unknown format "yaml"`},
		{[]string{"crash", "--history", precious}, "notesbench: --history: " + precious + " exists and is not a notesbench history"},
		{[]string{"crash", "--history", filepath.Join(dir, "no", "h.jsonl")}, "notesbench: --history: cannot write in"},
		{[]string{"crash", "--profile", "filesystem"}, "notesbench: --profile: is about a server: give --target too"},
		{[]string{"crash", "--watch", dir}, "notesbench: --watch: is about a server: give --target too"},
		{[]string{"crash", "--target", "stdio:x", "--watch", precious}, "notesbench: --watch: " + precious + " is not a folder"},
		{[]string{"crash", "--target", "stdio:x", "--synchronous", "full"}, "notesbench: --synchronous: is the embedded store's: the server of --target stdio:x keeps its own"},
		{[]string{"crash", "--target", "http://127.0.0.1:1/mcp"}, "notesbench: --target: only a server notesbench starts can be killed or paused: target http://127.0.0.1:1/mcp is a server notesbench does not start; give the command that starts it (--spawn)"},
		{[]string{"crash", "--target", "http://127.0.0.1:{port}/mcp"}, "notesbench: --target: http://127.0.0.1:{port}/mcp names {port}, the port of a server notesbench starts: give --spawn 'CMD' too"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
	if b, _ := os.ReadFile(precious); string(b) != "mine" {
		t.Error("--history overwrote a file that was not a history")
	}
}
