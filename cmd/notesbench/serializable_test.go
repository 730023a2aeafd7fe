package main

import (
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/pgtest"
)

// A store URL in the Serializable mode runs, and bench shows its retries per
// write; a notesbench_isolation that names no mode is bad usage, one line
// naming the parameter and the URL without its password.
func TestSerializableStore(t *testing.T) {
	url := pgtest.URL(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	code, stdout, stderr := runCLI(t, "bench", "--store", url+sep+"notesbench_isolation=serializable", "--guards", "note",
		"--writers", "1,2", "--writes", "30", "--warmup", "5", "--reps", "1", "--format", "markdown")
	if code != 0 || !strings.Contains(stdout, "| Retries per write |") || !strings.Contains(stdout, "notesbench_isolation=serializable") {
		t.Errorf("bench in the Serializable mode: exit %d\n%s%s", code, stdout, stderr)
	}
	expectUsageError(t, []string{"race", "--clock", "virtual", "--store", "postgres://u:secret-pw@127.0.0.1:1/db?notesbench_isolation=snapshot"},
		`notesbench: --store: postgres://u@127.0.0.1:1/db?notesbench_isolation=snapshot: parsing the URL: notesbench_isolation: unknown isolation "snapshot" (want read_committed or serializable)`)
}
