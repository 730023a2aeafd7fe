package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/internal/audit"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/npmtest"
	"github.com/notesbench/notesbench/internal/scratch"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/sim"
)

// auditTestRace is the race of auditTestBudget, with and without a
// nemesis: one seed of a few fast edits.
var auditTestRace = experiment.Change[race.Config]{Given: []string{"seeds", "edits", "claude-think", "human-think"}, Set: func(c *race.Config) {
	c.Seeds, c.Edits = []uint64{1}, 15
	c.ClaudeThink, c.HumanThink = sim.Dist{Min: time.Millisecond, Max: 6 * time.Millisecond}, sim.Dist{Min: time.Millisecond, Max: 4 * time.Millisecond}
}}

// auditTestBudget is small enough for a test: one race seed of a few
// fast edits, a few tabs, two sessions of sources, one kill.
var auditTestBudget = audit.Budget{
	Name:         "test",
	Race:         auditTestRace,
	Create:       experiment.Change[create.Config]{Given: []string{"seeds", "tabs"}, Set: func(c *create.Config) { c.Seeds, c.Tabs = []uint64{1}, 8 }},
	Sources:      experiment.Change[sources.Config]{Given: []string{"seeds", "sessions"}, Set: func(c *sources.Config) { c.Seeds, c.Sessions = []uint64{1}, 2 }},
	Kills:        2,
	Synchronous:  []contract.Synchronous{contract.SyncNormal},
	CheckTimeout: time.Minute,
	FastTime:     time.Second,
	Nemesis:      auditTestRace,
	NemesisEvery: 100 * time.Millisecond,
}

// scratchFolder is a scratch folder removed when t ends.
func scratchFolder(t *testing.T) *scratch.Dir {
	f := &scratch.Dir{}
	t.Cleanup(f.Remove)
	return f
}

// auditCLI returns the options of audit args, parsed as the command parses
// them, at the test budget, with its output in stdout and stderr.
func auditCLI(t *testing.T, args ...string) (*auditOptions, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, scratch: scratchFolder(t), width: 200}
	var got *auditOptions
	cmd := newAuditCmd(a, func(_ context.Context, o *auditOptions) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	got.budgetValue, got.budgetSet = auditTestBudget, true
	got.childEnv = childEnv
	return got, &stdout, &stderr
}

// The embedded store, audited through the command: its matrix names no
// anomaly of the store's, the kill -9 test ran as its fault mode, the
// nemesis column says why it did not, --out holds the three files, and a
// second audit against the first's JSON as its baseline passes.
func TestAuditCommandEmbedded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	o, stdout, stderr := auditCLI(t, "--format", "json", "--out", out)
	if err := runAudit(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var a results.Audit
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Matrix {
		// The embedded store declares no hints of its tools: none can be
		// broken, and the row says so.
		want := results.MarkOK
		if r.Anomaly == results.AnomalyDeclaredNotKept {
			want = results.MarkNotRun
		}
		if r.Mark != want {
			t.Errorf("row %s: %s %+v", r.Anomaly, r.Mark, r.Cells)
		}
	}
	if row, _ := a.Row(results.AnomalyDeclaredNotKept); len(row.Cells) != 1 || !strings.Contains(row.Cells[0].NotRun, "edit_note_tab does not declare idempotentHint: true") {
		t.Errorf("declared but not kept: %+v", row.Cells)
	}
	row, _ := a.Row(results.AnomalyLostAcknowledged)
	if c, ok := row.Cell("crash"); !ok || c.Count == nil || *c.Count != 0 {
		t.Errorf("crash cell %+v", row.Cells)
	}
	lost, _ := a.Row(results.AnomalyLostUpdate)
	for _, kind := range []string{"lose-replies", "duplicate", "kill", "pause"} {
		if c, ok := lost.Cell("nemesis " + kind); !ok || c.Count != nil || !strings.Contains(c.NotRun, "the embedded store runs inside notesbench: no wire or process to fault") {
			t.Errorf("nemesis %s cell %+v", kind, lost.Cells)
		}
	}
	// The histories the audit judged are kept; crash's checks clean, the
	// others hold what the client's policies cost (refresh's lost lines, a
	// fresh key's duplicates), which check counts.
	for f, want := range map[string]int{"histories/race.jsonl": 1, "histories/crash.jsonl": 0, "histories/create.jsonl": 1, "histories/sources.jsonl": 1} {
		if code, out, stderr := runCLI(t, "check", filepath.Join(out, f)); code != want {
			t.Errorf("check of the kept %s: exit %d, want %d\n%s%s", f, code, want, out, stderr)
		}
	}
	i := slices.IndexFunc(a.Parts, func(p results.AuditPart) bool { return p.Name == "crash" })
	if i < 0 || strings.Join(a.Parts[i].Command, " ") != "notesbench crash --kills 2 --seed 1 --life 5ms-40ms --synchronous normal" {
		t.Errorf("crash part %+v", a.Parts)
	}
	if a.Subject.Server != "notesbench devel (the embedded store)" || a.Subject.Guard != "note" || !a.Subject.VersionCheck {
		t.Errorf("subject %+v", a.Subject)
	}
	for _, f := range []string{report.AuditJSON, report.AuditMD, report.AuditHTML} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("--out: %s: %v", f, err)
		}
	}
	saved, _ := os.ReadFile(filepath.Join(out, report.AuditJSON))
	if !bytes.Equal(saved, stdout.Bytes()) {
		t.Error("audit.json is not what --format json printed")
	}

	o, stdout, stderr = auditCLI(t, "--baseline", filepath.Join(out, report.AuditJSON), "--out", out)
	if err := runAudit(context.Background(), o); err != nil {
		t.Fatalf("against its own baseline: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout.String(), "### Against the baseline ") || !strings.Contains(stdout.String(), "no count is worse than the baseline's") {
		t.Errorf("markdown without the baseline's table:\n%s", stdout)
	}
}

// notesbench serve with and without a version check, audited over stdio:
// the first passes with no server anomaly, its kill -9 test run against the
// server notesbench started and nothing acknowledged lost; the second loses
// updates and takes stale writes, and fails naming them (and nothing else:
// its kill -9 test takes one writer), with exit code 1.
func TestAuditCommandServe(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("spawns notesbench serve")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	bin := buildNotesbench(t)
	db := filepath.Join(t.TempDir(), "audit.db")
	target := "stdio:" + shell.Quote(bin) + " serve --db " + shell.Quote(db)
	o, stdout, stderr := auditCLI(t, "--target", target)
	if err := runAudit(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	md := stdout.String()
	for _, want := range []string{"| lost update | 0 lines | ok | 0 of 30 lines |", "| stale write accepted | 0 writes, 0 clauses | ok | 0 writes |  | 0 of 1 clause |",
		"| acknowledged write lost under kill -9 | 0 writes | ok |  |  |  |  |  |  |  |  |  |  | 0 writes |", "- verdict: passed: no anomaly found that --allow does not name"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}

	target = "stdio:" + shell.Quote(bin) + " serve --guard none --db " + shell.Quote(filepath.Join(t.TempDir(), "none.db"))
	o, _, _ = auditCLI(t, "--target", target, "--format", "json")
	err := runAudit(context.Background(), o)
	var failed audit.VerdictError
	if !errors.As(err, &failed) || !slices.Equal(failed.Audit.Failed, []string{results.AnomalyLostUpdate, results.AnomalyStaleWrite}) {
		t.Fatalf("guard none: %v", err)
	}
	if cli.ExitCode(err) != 1 || !strings.HasPrefix(err.Error(), "audit of "+target+" failed: found lost-update, stale-write") {
		t.Errorf("exit %d: %v", cli.ExitCode(err), err)
	}
}

// The official filesystem server through its profile: lost updates and
// stale writes accepted, the audit fails; create and sources say why they
// did not run.
func TestAuditFilesystemServer(t *testing.T) {
	testpass.Large(t, "installs and runs the npm server")
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	bin := npmtest.Install(t, npmtest.Filesystem)
	target := "stdio:" + shell.Quote(filepath.Join(bin, "mcp-server-filesystem")) + " " + shell.Quote(t.TempDir())
	o, _, stderr := auditCLI(t, "--target", target, "--profile", "filesystem", "--format", "json")
	err := runAudit(context.Background(), o)
	var failed audit.VerdictError
	if !errors.As(err, &failed) {
		t.Fatalf("the filesystem server passed: %v\n%s", err, stderr)
	}
	a := failed.Audit
	if !slices.Equal(a.Failed, []string{results.AnomalyLostUpdate, results.AnomalyStaleWrite}) {
		t.Errorf("failed %v", a.Failed)
	}
	row, _ := a.Row(results.AnomalyStaleWrite)
	if c, ok := row.Cell("conform"); !ok || c.Count == nil || *c.Count != 1 {
		t.Errorf("the stale-version clause: %+v", row.Cells)
	}
	row, _ = a.Row(results.AnomalyDuplicate)
	if row.Mark != results.MarkNotRun || len(row.Cells) != 3 || !strings.Contains(row.Cells[0].NotRun, "profile filesystem maps no create") {
		t.Errorf("duplicates: %+v", row)
	}
	if a.Subject.Server != "@modelcontextprotocol/server-filesystem 2026.8.31" || a.Subject.WriteStyle != "whole text (write_file)" || a.Subject.VersionCheck {
		t.Errorf("subject %+v", a.Subject)
	}
}

// A read-only server, through a profile that maps no write, is audited for
// what it has: every part that writes says it did not run and why, the
// subject says the server is read-only, and the audit passes (exit 0),
// never "failed" for lacking a write.
func TestAuditReadOnlyServer(t *testing.T) {
	url := serveHTTPInProcess(t)
	prof := filepath.Join(t.TempDir(), "read-only.json")
	if err := os.WriteFile(prof, []byte(`{
  "format_version": 2,
  "name": "notes-read-only",
  "setup": {"document": "{run}.{note}", "create": [{"tool": "notesbench_create_note", "arguments": {"note_id": "{document}"}}]},
  "read": {"tool": "read_note_tab", "arguments": {"note_id": "{document}", "tab_id": "markdown"}, "content": {"pointer": "/data"}, "version": {"pointer": "/version"}}
}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o, stdout, stderr := auditCLI(t, "--target", url, "--profile", prof, "--format", "json")
	if err := runAudit(context.Background(), o); err != nil {
		t.Fatalf("a read-only server: %v (exit %d)\n%s", err, cli.ExitCode(err), stderr)
	}
	var a results.Audit
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if a.Subject.WriteStyle != "none: the profile maps no write (a read-only server)" || len(a.Errors) > 0 || len(a.Failed) > 0 {
		t.Errorf("subject %+v, errors %v, failed %v", a.Subject, a.Errors, a.Failed)
	}
	row, _ := a.Row(results.AnomalyLostUpdate)
	if row.Mark != results.MarkNotRun || len(row.Cells) == 0 || !strings.Contains(row.Cells[0].NotRun, "profile notes-read-only maps no write") {
		t.Errorf("lost update: %+v", row)
	}
}

// Bad input: one line naming the flag, exit 2, nothing run, no folder
// written.
func TestAuditBadInput(t *testing.T) {
	dir := t.TempDir()
	race := filepath.Join(dir, "race.json")
	if code, _, stderr := runCLI(t, "race", "--clock", "virtual", "--edits", "3", "--seeds", "1", "--replications", "0", "--out", race); code != 0 {
		t.Fatal(stderr)
	}
	quick := filepath.Join(dir, "quick.json")
	b, _ := json.Marshal(results.Audit{Experiment: "audit", Budget: "quick", Matrix: []results.AuditRow{{Anomaly: "lost-update"}}, Version: "v1"})
	os.WriteFile(quick, b, 0o644)
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--budget", "huge"}, `--budget: unknown budget "huge" (want smoke, quick or full)`},
		{[]string{"--allow", "lost-update,typo"}, `--allow: unknown anomaly "typo" (want ` + strings.Join(results.AnomalyNames(), ", ") + `)`},
		{[]string{"--allow", "duplicate,duplicate"}, `--allow: "duplicate" is listed twice`},
		{[]string{"--parallel", "-1"}, "--parallel: must be 0 or more"},
		{[]string{"--format", "csv"}, `--format: unknown format "csv" (want table, markdown, json or html)`},
		{[]string{"--target", "stdio:x", "--note", "n1"}, "--note: names one fresh Note, which serves one run: an audit makes many (use a server that creates its Notes)"},
		{[]string{"--max-errors", "0"}, "--max-errors: must be at least 1 (a run ends once this many of its calls ended in an error)"},
		{[]string{"--baseline", filepath.Join(dir, "missing.json")}, "--baseline: stat " + filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{[]string{"--baseline", race}, `--baseline: ` + race + ` holds "race", not an audit`},
		{[]string{"--baseline", quick, "--budget", "smoke"}, "--baseline: " + quick + " is an audit at budget quick, this one runs smoke: counts of different budgets cannot be compared"},
		{[]string{"--out", file}, "--out: " + file + " is a file, not a folder"},
		{[]string{"--out", "/dev/full"}, "--out: /dev/full is a device, not a folder"},
		{[]string{"--profile", "filesystem"}, "--profile: maps a server's own tools: give --target too"},
		{[]string{"stray"}, `unknown command "stray" for "notesbench audit"`},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"audit", "--out", out}, tc.args...)...)
		if code != 2 || stdout != "" || stderr != "notesbench: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, stdout, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil && !slices.Contains(tc.args, out) {
			t.Fatalf("%v: --out folder written", tc.args)
		}
	}
}

// An audit folder that cannot be written (a full disk) is one error naming
// --out, the folder and the cause, not the staging file the user never
// named; exit 1, as a failure, not bad input; and nothing of it is left.
func TestAuditOutWriteFailure(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "audit-report")
	err := cli.WriteWhole("--out", out, report.AuditMD, func(dir string) error {
		if err := os.WriteFile(filepath.Join(dir, report.AuditMD), []byte("# notesbench audit: half\n"), 0o644); err != nil {
			return err
		}
		return fmt.Errorf("writing %s: %w", report.AuditHTML, &fs.PathError{Op: "write", Path: filepath.Join(dir, report.AuditHTML), Err: syscall.ENOSPC})
	})
	want := "--out: writing " + out + ": no space left on device"
	if err == nil || err.Error() != want || !errors.Is(err, syscall.ENOSPC) || cli.ExitCode(err) != 1 {
		t.Errorf("%v (exit %d), want %q, exit 1", err, cli.ExitCode(err), want)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a failed write left %v", entries)
	}
}

// serveHTTPInProcess serves an in-memory store of the contract over
// streamable HTTP, as serve --http does, on an ephemeral loopback port, for
// as long as the test runs, and returns its URL.
func serveHTTPInProcess(t *testing.T) string {
	t.Helper()
	srv := inMemoryServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serving: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + serve.HTTPPath
}
