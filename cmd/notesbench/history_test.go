package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --history records what check then judges on its own: a re-applying race is
// clean, a race without a guard is not; create and sources record too; a bad
// history path is refused before anything runs.
func TestHistoryFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		args      []string
		file      string
		checkCode int
	}{
		{[]string{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "12", "--modes", "note/reapply"}, "clean.jsonl", 0},
		{[]string{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "12", "--modes", "none"}, "none.jsonl", 1},
		{[]string{"create", "--seeds", "1", "--tabs", "6", "--table", "a"}, "create.jsonl", 1},
		{[]string{"sources", "--sessions", "2"}, "sources.jsonl", 1},
	} {
		args := append(tc.args, "--replications", "0", "--format", "json", "--history", path(tc.file))
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		code, stdout, stderr := runCLI(t, "check", path(tc.file), "--format", "markdown")
		if code != tc.checkCode {
			t.Errorf("check %s: exit %d, want %d\n%s%s", tc.file, code, tc.checkCode, stdout, stderr)
		}
	}
	precious := path("notes.txt")
	if err := os.WriteFile(precious, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	expectUsageError(t, []string{"race", "--clock", "virtual", "--history", precious}, "notesbench: --history: "+precious+" exists and is not a notesbench history")
	expectUsageError(t, []string{"create", "--history", dir}, "notesbench: --history: "+dir+" is a folder")
	if b, _ := os.ReadFile(precious); string(b) != "mine" {
		t.Fatal("a refused run overwrote a file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 || strings.Contains(entries[0].Name(), ".tmp") {
		t.Errorf("files left: %v", entries)
	}
}
