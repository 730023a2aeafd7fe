package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/bench"
)

// Bad bench input gets one line naming the flag, exit code 2, and nothing runs.
func TestBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--writes", "0"}, "notesbench: --writes: must be at least 1"},
		{[]string{"--reps", "0"}, "notesbench: --reps: must be at least 1"},
		{[]string{"--writers", "0"}, "notesbench: --writers: 0: must be at least 1"},
		{[]string{"--writers", "1,x"}, `notesbench: --writers: "x" is not a whole number`},
		{[]string{"--text-size", "-1"}, "notesbench: --text-size: must be 0 or more"},
		{[]string{"--warmup", "-1"}, "notesbench: --warmup: must be 0 or more"},
		{[]string{"--guards", "sometimes"}, `notesbench: --guards: unknown guard "sometimes" (want none, note or tab)`},
		{[]string{"--guards", "note,note"}, "notesbench: --guards: note is listed twice"},
		{[]string{"--synchronous", "off"}, `notesbench: --synchronous: unknown synchronous setting "off"`},
		{[]string{"--format", "yaml"}, `notesbench: --format: unknown format "yaml"`},
		{[]string{"--db", file}, "notesbench: --db: " + file + " is not a folder"},
		{[]string{"--out", filepath.Join(dir, "missing", "r.json")}, "notesbench: --out: cannot write in"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, append([]string{"bench"}, tc.args...), tc.want)
		})
	}
}

// configured runs the command of d with args up to its configuration, and
// returns the instance, configured; the target it opened is closed at the
// end of the test.
func configured(t *testing.T, d experiment.Descriptor, args ...string) experiment.Instance {
	t.Helper()
	a := &app{stdout: new(strings.Builder), stderr: new(strings.Builder)}
	var got *experimentOptions
	cmd := newExperimentCmd(a, d, func(ctx context.Context, o *experimentOptions) error {
		got = o
		return o.configure(ctx)
	})
	cmd.SetArgs(args)
	err := cmd.Execute()
	if got != nil {
		t.Cleanup(func() { got.target.close(a) })
	}
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return got.inst
}

// Flags reach the configuration.
func TestBenchFlagsReachTheConfig(t *testing.T) {
	cfg := configured(t, bench.Experiment, "--writes", "50", "--reps", "4", "--warmup", "0", "--text-size", "10", "--guards", "tab,none",
		"--writers", "1,2,4", "--synchronous", "full", "--format", "gobench").Config().(bench.Config)
	if cfg.Writes != 50 || cfg.Reps != 4 || cfg.Warmup != 0 || cfg.TextSize != 10 || cfg.Synchronous != "full" ||
		!slices.Equal(cfg.Guards, []contract.Guard{contract.GuardTab, contract.GuardNone}) || !slices.Equal(cfg.Writers, []int{1, 2, 4}) {
		t.Fatalf("config %+v", cfg)
	}
}

// A small run prints the JSON report with the row keys the README lists, and
// Go benchmark lines that benchstat reads.
func TestBenchRuns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bench.json")
	args := []string{"bench", "--writes", "20", "--reps", "2", "--warmup", "2", "--guards", "none,note", "--writers", "1,2"}
	code, stdout, stderr := runCLI(t, append(args, "--format", "json", "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Experiment  string           `json:"experiment"`
		Rows        []map[string]any `json:"rows"`
		Runs        []map[string]any `json:"runs"`
		Differences []map[string]any `json:"differences"`
		Warnings    []string         `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Experiment != "bench" || len(rep.Rows) != 4 || len(rep.Runs) != 8 || len(rep.Differences) != 4 || len(rep.Warnings) == 0 {
		t.Fatalf("report: %d rows, %d runs, %d differences, warnings %q", len(rep.Rows), len(rep.Runs), len(rep.Differences), rep.Warnings)
	}
	for _, k := range []string{"guard", "median_us", "p90_us", "p99_us", "p999_us", "max_us", "writes", "reps", "writes_per_s", "writers"} {
		if _, ok := rep.Rows[0][k]; !ok {
			t.Errorf("row lacks %q: %v", k, rep.Rows[0])
		}
	}
	if w := rep.Rows[3]; w["writers"] != 2.0 || w["writes"] != 80.0 || w["reps"] != 2.0 {
		t.Errorf("last row %v, want 2 writers × 20 writes × 2 reps", w)
	}
	if file, err := os.ReadFile(out); err != nil || !bytes.Equal(file, []byte(stdout)) {
		t.Errorf("--out file differs from the printed JSON (%v)", err)
	}

	code, stdout, stderr = runCLI(t, append(args, "--format", "gobench")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := regexp.MustCompile(`^BenchmarkEditNoteTab/guard=(none|note)(/writers=2)?\t(20|40)\t\d+ ns/op\t\d+ p99-ns/op\t\d+ p99.9-ns/op\t[\d.]+ writes/s$`)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines:\n%s", len(lines), stdout)
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("not a benchmark line: %q", l)
		}
	}
}

// bench with parameters other than the published setup (one writer) shows no
// published columns, and one line saying why; it used to show columns of "—".
func TestBenchOtherSetupHidesPublished(t *testing.T) {
	code, stdout, stderr := runCLI(t, "bench", "--writers", "8", "--writes", "20", "--reps", "1", "--warmup", "0", "--guards", "note", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var why []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "| published") || strings.Contains(line, "(published) |") {
			t.Errorf("a published column: %q", line)
		}
		if strings.Contains(line, "published figures not shown") {
			why = append(why, strings.TrimSpace(line))
		}
	}
	if len(why) != 1 || !strings.HasSuffix(why[0], "published figures not shown: parameters differ from the published setup: writes 20 (published 2000), reps 1 (published 3), writers 8 (published 1)") {
		t.Errorf("notes about the published figures: %q", why)
	}
}
