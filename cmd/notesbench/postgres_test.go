package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/pgtest"
)

// On the virtual clock the same command counts the same on SQLite and on
// PostgreSQL; --keep leaves each run's schema and names it; a server that
// refuses the login is one line without the password.
func TestPostgresStore(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("runs the experiments on PostgreSQL")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	url := pgtest.URL(t)
	counts := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, append(args, "--format", "json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		var rep struct {
			Rows json.RawMessage `json:"rows"`
			Runs json.RawMessage `json:"runs"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		// Wall times are virtual seconds, the same on both; keep everything.
		return string(rep.Rows) + string(rep.Runs)
	}
	for _, args := range [][]string{
		{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "15", "--replications", "0"},
		{"create", "--seeds", "1", "--tabs", "8", "--replications", "0"},
	} {
		sqlite := counts(append(args, "--store", "sqlite")...)
		pg := counts(append(args, "--store", url)...)
		if sqlite != pg {
			t.Errorf("%v: SQLite and PostgreSQL differ:\n%s\n%s", args, sqlite, pg)
		}
	}
	code, stdout, stderr := runCLI(t, "race", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--modes", "note/reapply",
		"--replications", "0", "--store", url, "--keep", "--format", "json")
	if code != 0 || !regexp.MustCompile(`notesbench: kept schema notesbench_\S+ on postgres`).MatchString(stderr) {
		t.Errorf("--keep: exit %d, stderr %q", code, stderr)
	}
	bad := regexp.MustCompile(`//([^:@/]+):[^@]+@`).ReplaceAllString(url, "//$1:wrong-secret@")
	code, stdout, stderr = runCLI(t, "race", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--store", bad)
	if code != 1 || stdout != "" || strings.Contains(stderr, "wrong-secret") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("wrong password: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "bench", "--store", url, "--guards", "note", "--writes", "40", "--warmup", "5", "--reps", "2", "--format", "markdown")
	if code != 0 || !strings.Contains(stdout, "Ours / peer") || !strings.Contains(stdout, "on PostgreSQL") {
		t.Errorf("bench on PostgreSQL with its pgbench peer: exit %d\n%s%s", code, stdout, stderr)
	}
	expectUsageError(t, []string{"race", "--store", "mysql://x"}, `notesbench: --store: "mysql://x" is not sqlite or a postgres:// URL`)
	expectUsageError(t, []string{"race", "--keep"}, "notesbench: --keep: applies to a PostgreSQL store or a server target only")
	expectUsageError(t, []string{"race", "--store", url, "--memory"}, "notesbench: --memory: applies to the SQLite store")
}
