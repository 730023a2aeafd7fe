package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// race --db DIR keeps each run's database in DIR, replacing what an earlier
// run left there, never a file of the user's that bears a run's name: that
// is one line naming the file and --db, exit 2, and the file is left as it
// was.
func TestDBFolderRefusesTheUsersFiles(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "race-none-seed1.db")
	text := []byte("my notes, not a database\n")
	if err := os.WriteFile(mine, text, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.json")
	expectUsageError(t, []string{"race", "--clock", "virtual", "--seeds", "1", "--edits", "2", "--db", dir, "--out", out},
		"notesbench: --db: "+mine+" is not a notesbench database (not an SQLite database: ")
	if after, _ := os.ReadFile(mine); !bytes.Equal(after, text) {
		t.Fatalf("the user's file became %.60q", after)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("--out was written: %v", err)
	}
	// A database an earlier run left is replaced.
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if code, _, stderr := runCLI(t, "race", "--clock", "virtual", "--seeds", "1", "--edits", "2", "--db", dir, "--format", "json"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
}
