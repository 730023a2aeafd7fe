package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/results"
)

// recordHistory records a small virtual race with a lost update (guard
// none) in a history file and returns its path.
func recordHistory(t *testing.T) string {
	t.Helper()
	h := filepath.Join(t.TempDir(), "r.jsonl")
	if code, _, stderr := runCLI(t, "race", "--clock", "virtual", "--seeds", "1", "--edits", "10", "--modes", "note/reapply", "--replications", "0", "--history", h); code != 0 {
		t.Fatalf("race: exit %d: %s", code, stderr)
	}
	return h
}

// A check that could not judge everything is not a clean one: "unknown" has
// exit code 3, and its figures show as "—", never as a 0 that reads as none.
func TestUnknownIsNotClean(t *testing.T) {
	h := recordHistory(t)
	if code, _, stderr := runCLI(t, "check", h); code != 0 {
		t.Fatalf("a clean history: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "check", "--timeout", "1ns", "--format", "markdown", h)
	if code != cli.ExitUnknown || !strings.HasPrefix(stderr, "notesbench: unknown: ") || strings.Contains(stderr, "replay with") {
		t.Fatalf("check --timeout 1ns: exit %d, %q", code, stderr)
	}
	if !strings.Contains(stdout, "| "+"—"+" |") {
		t.Errorf("no figure shows as not checked:\n%s", stdout)
	}
}

// check reads a history on standard input with -, refuses a device that
// would never end, and writes its JSON result with --out.
func TestCheckInputsAndOut(t *testing.T) {
	h := recordHistory(t)
	data, err := os.ReadFile(h)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", "--format", "json", "-"}, bytes.NewReader(data), &stdout, &stderr); code != 0 {
		t.Fatalf("check -: exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Config struct {
			Histories []string `json:"histories"`
		} `json:"config"`
		Runs []any `json:"runs"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Runs) != 1 || len(rep.Config.Histories) != 1 || rep.Config.Histories[0] != "-" {
		t.Fatalf("check -: %v %+v", err, rep)
	}
	expectUsageError(t, []string{"check", os.DevNull}, "notesbench: "+os.DevNull+": not a regular file")
	out := filepath.Join(t.TempDir(), "verdicts.json")
	if code, _, stderr := runCLI(t, "check", "--out", out, h); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, stderr)
	}
	if !results.IsResultFile(out) {
		t.Errorf("--out wrote no JSON result")
	}
	same := filepath.Join(t.TempDir(), "same")
	expectUsageError(t, []string{"check", "--out", same, "--html", same, h}, "notesbench: --html: names the same file as --out")
}

// check's CSV is tidy: a record per figure, named by its JSON key.
func TestCheckCSVIsTidy(t *testing.T) {
	h := recordHistory(t)
	code, stdout, stderr := runCLI(t, "check", "--format", "csv", h)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, r := range recs[1:] {
		found[r[0]+" "+r[2]] = r[4]
	}
	if found["check verdict"] == "" || found["check_runs lost"] != "0" || found["check_runs stale_overwrites"] != "0" {
		t.Errorf("records %v", found)
	}
}
