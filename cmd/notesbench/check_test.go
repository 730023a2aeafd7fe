package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/report"
)

// recordRace records two editors racing on the embedded store under guard: each
// reads, then both write one line with the version they read; under a guard the
// second conflicts, re-reads and writes again.
func recordRace(t *testing.T, guard contract.Guard) string {
	t.Helper()
	ctx := context.Background()
	target := backend.Memory()
	defer target.Close()
	be, err := target.Open(ctx, contract.RunSpec{Name: "r", Variant: contract.Variant{Guard: guard}})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if err := be.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	w := history.NewWriter(history.Header{Experiment: "test"})
	var now int64
	rec, err := w.Run(history.RunHeader{Run: "race-" + string(guard), Seed: 1, Variant: contract.Variant{Guard: guard}, Policy: "reapply"},
		func() int64 { now += 1000; return now })
	if err != nil {
		t.Fatal(err)
	}
	var sessions [3]contract.Session
	for i := range sessions {
		if sessions[i], err = be.Session(ctx); err != nil {
			t.Fatal(err)
		}
		defer sessions[i].Close()
	}
	claude, human := rec.Session(sessions[0], "claude"), rec.Session(sessions[1], "human")
	rc, _ := claude.ReadNoteTab(ctx, "note-1", "markdown")
	rh, _ := human.ReadNoteTab(ctx, "note-1", "markdown")
	write := func(s contract.Session, read contract.TabContent, line string) error {
		history.Intend(s, history.Intent{Mark: line})
		_, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: read.Version,
			IdempotencyKey: line + "-" + string(read.Version), Operation: contract.OpReplaceText, Text: read.Text + "\n" + line})
		return err
	}
	if err := write(claude, rc, "claude-0"); err != nil {
		t.Fatal(err)
	}
	if err := write(human, rh, "human-0"); err != nil {
		rh, _ = human.ReadNoteTab(ctx, "note-1", "markdown")
		if err := write(human, rh, "human-0"); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Final(ctx, sessions[2], "note-1"); err != nil {
		t.Fatal(err)
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "race-"+string(guard)+".jsonl")
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// A race on the store under the version check checks clean; without the
// check the second write is a stale overwrite that lost a line: exit 1.
func TestCheckCommand(t *testing.T) {
	clean := recordRace(t, contract.GuardNote)
	code, stdout, stderr := runCLI(t, "check", clean, "--format", "markdown")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"| linearizability | ok | 1 | 0 | 0 |", "| lost-updates | ok | 2 | 0 | 0 |", "| stale-overwrites | ok | 2 | 0 | 0 |",
		"| race-note | note, counter, key-first | reapply | 6 | ok | 0 | claude 0 of 1, human 0 of 1 | 0 | 0 | 0 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	lossy := recordRace(t, contract.GuardNone)
	code, stdout, stderr = runCLI(t, "check", lossy, "--format", "json")
	if code != 1 || !strings.HasPrefix(stderr, "notesbench: violated: lost-updates, stale-overwrites\n") {
		t.Fatalf("exit %d, stderr %q; want 1 and the violated checks", code, stderr)
	}
	var out report.CheckRecord
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	r := out.Runs[0]
	if r.Lost != 1 || r.StaleOverwrites != 1 || r.Linearizable != "ok" || out.Rows[2].Verdict != "violated" {
		t.Errorf("json: %+v", out)
	}
}

// A conflict that reports a version the register never held is not
// linearizable; --html writes porcupine's page of it, whole.
func TestCheckHTML(t *testing.T) {
	path := recordRace(t, contract.GuardNote)
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	edited := false
	for i, l := range lines {
		if strings.Contains(l, `"outcome":"conflict"`) {
			lines[i] = strings.Replace(l, `"version":"2"`, `"version":"9"`, 1)
			edited = true
		}
	}
	if !edited {
		t.Fatal("the recorded race has no conflict")
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)
	page := filepath.Join(t.TempDir(), "first-violation.html")
	code, stdout, stderr := runCLI(t, "check", bad, "--html", page, "--format", "markdown")
	if code != 1 || !strings.Contains(stderr, "violated: linearizability") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "linearizability: "+bad+", run race-note: register note-1: no linearization") ||
		!strings.Contains(stdout, "porcupine's page of the first linearizability violation: "+page) {
		t.Errorf("output:\n%s", stdout)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "current 9") {
		t.Errorf("page: %d bytes, %v", len(html), err)
	}
	// A clean history writes no page.
	page2 := filepath.Join(t.TempDir(), "none.html")
	if code, stdout, _ := runCLI(t, "check", path, "--html", page2); code != 0 || !strings.Contains(stdout, "nothing written to "+page2) {
		t.Errorf("clean: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(page2); !os.IsNotExist(err) {
		t.Error("a page for a history without violation")
	}
}

// Bad input: one line naming the file and line, exit 2, no page written.
func TestCheckBadInput(t *testing.T) {
	good := recordRace(t, contract.GuardNote)
	b, _ := os.ReadFile(good)
	text := string(b)
	lines := strings.SplitAfter(text, "\n")
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	page := filepath.Join(dir, "page.html")
	precious := file("notes.txt", "not a page")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "notesbench: check needs at least one history file"},
		{[]string{"check", file("empty.jsonl", "")}, "notesbench: " + dir + "/empty.jsonl:1: empty file: no history header"},
		{[]string{"check", file("cut.jsonl", text[:len(text)-20])}, "notesbench: " + dir + "/cut.jsonl:" + strconv.Itoa(len(lines)-1) + ": truncated record"},
		{[]string{"check", file("bad.jsonl", lines[0]+lines[1]+"{\"format_version\":1,\n")}, "notesbench: " + dir + "/bad.jsonl:3: malformed record"},
		{[]string{"check", file("v2.jsonl", strings.Replace(text, `"format_version":1`, `"format_version":2`, 1))}, "notesbench: " + dir + "/v2.jsonl:1: format_version 2 is not supported"},
		{[]string{"check", file("mixed.jsonl", text+text)}, "notesbench: " + dir + "/mixed.jsonl:" + strconv.Itoa(len(lines)) + ": a second history header"},
		{[]string{"check", filepath.Join(dir, "missing.jsonl")}, "notesbench: " + dir + "/missing.jsonl: no such file or directory"},
		{[]string{"check", good, "--timeout", "0s", "--html", page}, "notesbench: --timeout: must be more than 0"},
		{[]string{"check", good, "--format", "yaml"}, `notesbench: --format: unknown format "yaml"`},
		{[]string{"check", good, "--html", precious}, "notesbench: --html: " + precious + " exists and is not an HTML page"},
		{[]string{"check", good, "--html", dir}, "notesbench: --html: " + dir + " is a folder"},
		{[]string{"check", good, "--html", filepath.Join(dir, "no", "page.html")}, "notesbench: --html: cannot write in"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := tc.args
			if !slices.Contains(args, "--html") {
				args = append(slices.Clone(args), "--html", page)
			}
			expectUsageError(t, args, tc.want)
		})
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Error("bad input left a page")
	}
	if b, _ := os.ReadFile(precious); string(b) != "not a page" {
		t.Error("--html overwrote a file that was not a page")
	}
}
