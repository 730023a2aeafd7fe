package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/results"
)

func TestReproduceBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "--replications", "0"}, "notesbench: --replications: must be at least 1"},
		{[]string{"reproduce", "--out", file}, "notesbench: --out: " + file + " is a file, not a folder"},
		{[]string{"reproduce", "--only", "race,nope"}, `notesbench: --only: unknown experiment "nope"`},
		{[]string{"reproduce", "--only", "nope", "--out", filepath.Join(dir, "new")}, `notesbench: --only: unknown experiment "nope"`},
		{[]string{"reproduce", "--out", filepath.Join(dir, "missing", "deeper")}, "notesbench: --out: cannot create"},
		{[]string{"reproduce", "--clock", "wall"}, `notesbench: --clock: unknown clock "wall"`},
		{[]string{"reproduce", "--format", "csv"}, `notesbench: --format: unknown format "csv" (want table, markdown or json)`},
	} {
		expectUsageError(t, tc.args, tc.want)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Fatal("a bad run touched the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("bad runs created %v", entries)
	}
}

// REPRODUCED.md is deterministic for virtual-clock content: the same command
// writes the same file twice (its machine lines aside), and it is a golden file.
func TestReproduceWritesDeterministicReport(t *testing.T) {
	var mds []string
	for i := 0; i < 2; i++ {
		dir := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := runCLI(t, "reproduce", "--only", "outline,validate", "--replications", "1", "--out", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "published figures consistent with ours") {
			t.Fatalf("no summary line in %s", stdout)
		}
		md, err := os.ReadFile(filepath.Join(dir, "REPRODUCED.md"))
		if err != nil {
			t.Fatal(err)
		}
		var js results.Reproduction
		b, err := os.ReadFile(filepath.Join(dir, "reproduced.json"))
		if err != nil || json.Unmarshal(b, &js) != nil {
			t.Fatalf("reproduced.json: %v", err)
		}
		if len(js.Reports) != 2 || js.Judged == 0 || js.Replications != 1 {
			t.Fatalf("reproduced.json holds %d reports, %d judged", len(js.Reports), js.Judged)
		}
		mds = append(mds, stripMachine(string(md)))
	}
	if mds[0] != mds[1] {
		t.Fatal("REPRODUCED.md differs between two identical runs")
	}
	// The counts are the baselines' to pin; here the report's shape: the
	// summary, a plot per judged figure that varies, then every table.
	for _, want := range []string{
		"published figures consistent with ours", "## Plots", "](plots/outline-slide-add-conflicts-per-deck.svg)", "## Tables",
		"### One create with an outline, or slide by slide", "### Verdicts: published figures against 2 replications of the published setup",
		"### Payloads a model might send",
	} {
		if !strings.Contains(mds[0], want) {
			t.Errorf("REPRODUCED.md lacks %q", want)
		}
	}
}

// stripMachine drops the lines that describe the machine and the version.
func stripMachine(md string) string {
	var keep []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "Machine:") || strings.HasPrefix(line, "Made by") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}
