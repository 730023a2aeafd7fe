package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/ghshape"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	// Run with ghshape.Env set, the test binary is a GitHub-shaped server
	// (the github example profile's tests spawn it over stdio).
	if os.Getenv(ghshape.Env) != "" {
		os.Exit(ghshape.Main())
	}
	// The tests name their store: a PostgreSQL server in the environment must
	// not become every command's default. The PostgreSQL tests get theirs from
	// internal/pgtest, which stops the cluster it starts.
	os.Unsetenv("NOTESBENCH_POSTGRES_URL")
	code := pgtest.Run(m) // and checks that no goroutine outlived the tests
	removeBuilds()
	os.Exit(code)
}

// runCLI runs notesbench with args and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// conformCLI runs conform as runCLI does. Under the race detector its
// within-a-millisecond clause writes for a second, not ten: the detector
// slows the server so that no two writes come within a millisecond, and
// the clause would write its whole time to say it could not tell.
func conformCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	args = append([]string{"conform"}, args...)
	if testpass.Race {
		args = append(args, "--fast-time", "1s")
	}
	return runCLI(t, args...)
}

// Bad input gets one line naming the flag, exit code 2, and no output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "result.json")
	precious := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(precious, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"race", "--seeds", "5-1"}, "notesbench: --seeds: range 5-1 is empty"},
		{[]string{"race", "--target", "http://127.0.0.1:1/{dir}/mcp"}, "notesbench: --target: http://127.0.0.1:1/{dir}/mcp names {dir} in its URL: it stands for a folder of the server's state, in the command of a stdio target or of --spawn"},
		{[]string{"conform", "--target", "embedded", "--fast-time", "0"}, "notesbench: --fast-time: must be above 0 and at most 10m0s"},
		{[]string{"conform", "--target", "embedded", "--fast-time", "11m"}, "notesbench: --fast-time: must be above 0 and at most 10m0s"},
		{[]string{"race", "--seeds", "x"}, `notesbench: --seeds: "x" is not a seed`},
		{[]string{"race", "--edits", "-3"}, "notesbench: --edits: must be at least 1"},
		{[]string{"race", "--claude-think", "80ms-20ms"}, "notesbench: --claude-think: 80ms-20ms: minimum above maximum"},
		{[]string{"race", "--modes", "note/reapply/x"}, `notesbench: --modes: "note/reapply/x": unknown conflict policy "reapply/x" (want reapply or refresh)`},
		{[]string{"race", "--modes", "none/reapply"}, `notesbench: --modes: "none/reapply": guard none takes no policy (nothing ever conflicts): write none`},
		{[]string{"race", "--format", "yaml"}, `notesbench: --format: unknown format "yaml"`},
		{[]string{"race", "--clock", "wall"}, `notesbench: --clock: unknown clock "wall" (want real or virtual)`},
		{[]string{"race", "--out", filepath.Join(dir, "missing", "r.json")}, "notesbench: --out: cannot write in"},
		{[]string{"race", "--out", dir}, "notesbench: --out: " + dir + " is a folder"},
		{[]string{"race", "--replications", "-1"}, "notesbench: --replications: must be 0 or more"},
		{[]string{"race", "--out", precious}, "notesbench: --out: " + precious + " exists and is not a notesbench result"},
		{[]string{"race", "--update-baseline", precious}, "notesbench: --update-baseline: " + precious + " exists and is not a notesbench result"},
		{[]string{"tabs", "--scopes", "sometimes"}, `notesbench: --scopes: unknown guard "sometimes"`},
		{[]string{"fast", "--formats", "ns"}, `notesbench: --formats: unknown version format "ns"`},
		{[]string{"fast", "--formats", "ms,ms"}, "notesbench: --formats: ms is listed twice"},
		{[]string{"tabs", "--scopes", "note,note"}, "notesbench: --scopes: note is listed twice"},
		{[]string{"fast", "--edits", "0", "--out", out}, "notesbench: --edits: must be at least 1"},
		{[]string{"conform", "--target", "embedded", "--note", "n1"}, "notesbench: --note: names a Note on a server, not on the embedded store"},
		{[]string{"race", "--no-such-flag"}, "notesbench: unknown flag: --no-such-flag"},
		{[]string{"no-such-command"}, `notesbench: unknown command "no-such-command" for "notesbench"`},
		// A mistyped command is told with those it may have meant, on the
		// one line.
		{[]string{"rase"}, `notesbench: unknown command "rase" for "notesbench"; did you mean fast, race or crash?`},
		{[]string{"reprodce", "--quick"}, `notesbench: unknown command "reprodce" for "notesbench"; did you mean reproduce?`},
		{[]string{"profiles", "shwo"}, `notesbench: unknown command "shwo" for "notesbench profiles"; did you mean show?`},
		{[]string{"completion", "bsh"}, `notesbench: unknown command "bsh" for "notesbench completion"; did you mean bash, zsh or fish?`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a bad run left %s", out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("bad runs left files: %v", entries)
	}
	if b, _ := os.ReadFile(precious); string(b) != "not ours" {
		t.Fatal("a run overwrote a file that was not a notesbench result")
	}
}

// Virtual-clock tables are deterministic: they are golden files, regenerated with
// go test ./cmd/notesbench -update and reviewed as a diff. They run small
// setups of our own: the counts of the published setups are pinned once, by
// the baselines (make regress), and the published columns and verdict tables
// by report's section goldens.
func TestGoldenVirtualTables(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"race-custom", []string{"race", "--clock", "virtual", "--seeds", "1-3", "--edits", "30", "--modes", "none,tab/reapply", "--format", "markdown"}},
		{"tabs-small", []string{"tabs", "--clock", "virtual", "--seeds", "1-2", "--edits", "30", "--format", "markdown"}},
		{"fast-small", []string{"fast", "--clock", "virtual", "--seeds", "1-3", "--edits", "150", "--service-time", "200µs", "--format", "markdown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectGolden(t, tc.name, tc.args)
		})
	}
}

// expectUsageError runs args and checks notesbench's answer to bad input: exit
// code 2, nothing on stdout, and one line on stderr starting with want.
func expectUsageError(t *testing.T, args []string, want string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], want) || stdout != "" {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line starting %q", args, code, stdout, stderr, want)
	}
}

// expectGolden runs args, which must succeed, and compares the output with
// testdata/name.md.
func expectGolden(t *testing.T, name string, args []string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkGolden(t, name, stdout)
}

// checkGolden compares output with testdata/NAME.md, or rewrites it with -update.
func checkGolden(t *testing.T, name, output string) {
	t.Helper()
	golden := filepath.Join("testdata", name+".md")
	if *update {
		if err := os.WriteFile(golden, []byte(output), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if output != string(want) {
		t.Fatalf("output differs from %s (rerun with -update and review the diff):\n%s", golden, output)
	}
}

// The same virtual command twice gives byte-identical JSON but for timing fields
// and the version.
func TestVirtualJSONIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	var outs []string
	for i := 0; i < 2; i++ {
		path := filepath.Join(dir, "r.json")
		code, stdout, stderr := runCLI(t, "race", "--clock", "virtual", "--seeds", "1-3", "--edits", "40", "--format", "json", "--out", path)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		file, err := os.ReadFile(path)
		if err != nil || string(file) != stdout {
			t.Fatalf("--out file differs from stdout: %v", err)
		}
		outs = append(outs, stdout)
	}
	if outs[0] != outs[1] {
		t.Fatal("two identical virtual runs printed different JSON")
	}
	for _, key := range []string{`"experiment": "race"`, `"rows": [`, `"runs": [`, `"config": {`, `"notesbench_version"`, `"lost_claude"`, `"mean_tries_human"`, `"clock": "virtual"`} {
		if !strings.Contains(outs[0], key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestBaselineGate(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "race.json")
	args := []string{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "20", "--replications", "0"}
	if code, _, stderr := runCLI(t, append(args, "--update-baseline", base)...); code != 0 {
		t.Fatalf("update: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(args, "--baseline", base)...); code != 0 {
		t.Fatalf("same run against its baseline: exit %d: %s", code, stderr)
	}
	orig, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(name, from, to string) string {
		t.Helper()
		if !strings.Contains(string(orig), from) {
			t.Fatalf("baseline lacks %s", from)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Replace(string(orig), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A changed count is a regression: exit 1 and the figure named.
	changed := edit("changed.json", `"conflicts_claude": `, `"conflicts_claude": 1000`)
	code, _, stderr := runCLI(t, append(args, "--baseline", changed)...)
	if code != 1 || !strings.Contains(stderr, "regression:") || !strings.Contains(stderr, "rows[0].conflicts_claude: baseline 1000") ||
		!strings.Contains(stderr, "replay with: notesbench race --clock virtual --seeds 1-2") {
		t.Fatalf("changed count: exit %d, stderr %q", code, stderr)
	}
	// Timing fields are not compared.
	timing := edit("timing.json", `"wall_s": `, `"wall_s": 99`)
	if code, _, stderr := runCLI(t, append(args, "--baseline", timing)...); code != 0 {
		t.Fatalf("timing change: exit %d: %s", code, stderr)
	}
	// On the real clock only invariants and recorded ranges are checked: the
	// edited count is outside no range here (the baseline has no verdicts), but a
	// reapply row that lost a line breaks an invariant.
	real := []string{"race", "--seeds", "1", "--edits", "5", "--claude-think", "1ms", "--human-think", "1ms", "--replications", "0"}
	realBase := filepath.Join(dir, "real.json")
	if code, _, stderr := runCLI(t, append([]string{"race", "--clock", "virtual", "--seeds", "1", "--edits", "5", "--claude-think", "1ms", "--human-think", "1ms", "--replications", "0"}, "--update-baseline", realBase)...); code != 0 {
		t.Fatalf("recording: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(real, "--baseline", realBase)...); code != 0 {
		t.Fatalf("real clock against a baseline: exit %d: %s", code, stderr)
	}
	recorded, err := os.ReadFile(realBase)
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Rows []race.Row `json:"rows"`
	}
	if err := json.Unmarshal(recorded, &stored); err != nil {
		t.Fatal(err)
	}
	reapply := slices.IndexFunc(stored.Rows, func(r race.Row) bool { return r.Policy == "reapply" })
	if reapply < 0 {
		t.Fatalf("the baseline has no reapply row: %+v", stored.Rows)
	}
	stored.Rows[reapply].Lost = 1
	out := virtualRace(t) // race's invariants, as a run declares them
	out.Report, out.Rows = results.Report{Experiment: "race", Rows: stored.Rows}, nil
	for _, r := range stored.Rows {
		out.Rows = append(out.Rows, r)
	}
	_, err = (&results.Baseline{Path: realBase, JSON: recorded}).Check(out.Report, true, out.Invariants, out.Rows)
	var reg *results.Regression
	if !errors.As(err, &reg) || !strings.Contains(err.Error(), fmt.Sprintf("rows[%d].lost", reapply)) ||
		!strings.Contains(err.Error(), "re-applying after a conflict never loses a line") {
		t.Fatalf("a reapply row that lost a line, on the real clock: %v; want a regression naming the invariant", err)
	}
	// A baseline of other parameters is bad usage, not a regression.
	if code, _, stderr := runCLI(t, append(real, "--baseline", base)...); code != 2 || !strings.Contains(stderr, "was recorded with other parameters") {
		t.Fatalf("real clock against another setup: exit %d: %s", code, stderr)
	}
	// Bad baselines are bad usage.
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.json"), "no such file"},
		{edit("broken.json", "{", "{{"), "is not a notesbench JSON result"},
		{edit("other.json", `"experiment": "race"`, `"experiment": "tabs"`), `holds a "tabs" result, not race`},
	} {
		code, stdout, stderr := runCLI(t, append(args, "--baseline", tc.path)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q", tc.path, code, stderr)
		}
	}
}

// virtualRace is the outcome of a small race on the virtual clock, in
// memory, run in process.
func virtualRace(t *testing.T) *experiment.Findings {
	t.Helper()
	in := simtest.Configure(t, race.Experiment, sim.TargetSettings{}, sim.Runtime{Target: backend.Memory()}, "clock", "virtual", "seeds", "1", "edits", "3")
	out, err := in.Run(context.Background(), experiment.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
