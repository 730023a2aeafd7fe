package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/report"
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
		{[]string{"reproduce", "--against", filepath.Join(dir, "missing.json")}, "notesbench: --against: stat " + filepath.Join(dir, "missing.json")},
		{[]string{"reproduce", "--against", file}, "notesbench: --against: " + file + ": invalid character"},
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

// A shard of a reproduction, run with --against that reproduction's
// reproduced.json, checks each unit it ran against the digest recorded:
// exit 0 when all give the same, 1 naming each that does not, and a
// reproduction of other parameters, or one with no digests, is bad input
// that runs nothing and writes nothing.
func TestReproduceShardAgainst(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runCLI(t, "reproduce", "--only", "outline,validate", "--replications", "1", "--out", whole); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	against := filepath.Join(whole, report.ReproducedJSON)
	code, stdout, stderr := runCLI(t, "reproduce", "--only", "outline,validate", "--replications", "1", "--shard", "1/2", "--against", against, "--out", filepath.Join(dir, "s1.json"))
	if code != 0 || !strings.Contains(stdout, "checked against "+against+", 0 giving another result") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	var rec map[string]any
	b, _ := os.ReadFile(against)
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	units := rec["unit_digests"].([]any)
	job := units[0].(map[string]any)["jobs"].([]any)[0].([]any)
	job[0] = "0000000000000000" // outline's unit 0, which shard 1/2 runs
	tampered := filepath.Join(dir, "tampered.json")
	writeJSONFile(t, tampered, rec)
	code, _, stderr = runCLI(t, "reproduce", "--only", "outline,validate", "--replications", "1", "--shard", "1/2", "--against", tampered)
	if code != 1 || !strings.Contains(stderr, "1 unit of shard 1/2 gives another result than "+tampered+" records: outline job 1 unit 0 (main run") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	delete(rec, "unit_digests")
	none := filepath.Join(dir, "none.json")
	writeJSONFile(t, none, rec)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--replications", "2", "--against", against}, "notesbench: --against: " + against + ": a shard is checked against the reproduction that ran it: it was made with --replications 1, not 2"},
		{[]string{"--replications", "1", "--clock", "real", "--against", against}, "notesbench: --against: " + against + ": a shard is checked against the reproduction that ran it: it was made with --clock virtual, not real"},
		{[]string{"--replications", "1", "--only", "refs", "--against", against}, "notesbench: --against: " + against + ": a shard is checked against the reproduction that ran it: it did not run refs"},
		{[]string{"--replications", "1", "--against", none}, "notesbench: --against: " + none + ": a shard is checked against the reproduction that ran it: it holds no digests of its units"},
	} {
		out := filepath.Join(dir, "bad.json")
		expectUsageError(t, append([]string{"reproduce", "--shard", "1/1", "--out", out}, tc.args...), tc.want)
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v wrote %s", tc.args, out)
		}
	}
}

// REPRODUCED.md is deterministic for virtual-clock content: the same command
// writes the same file twice (its machine lines aside). The committed one is
// held to the code by TestCommittedReproductionUnits (and, whole, by make
// reproduce-check).
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

// --against sets the verdicts of this run beside those of another
// reproduction's reproduced.json: it counts the figures both judged and
// those judged alike, and lists exactly the others, in REPRODUCED.md and in
// reproduced.json. With 1 replication (2 runs) outline's conflicts per deck
// are judged by the smallest and largest of 2, which hold a new run a third
// of the time; with 20 (40 runs) as near normal, at 99 %.
func TestReproduceAgainst(t *testing.T) {
	dir := t.TempDir()
	code, quick, stderr := runCLI(t, "reproduce", "--only", "outline", "--replications", "1", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	quickPath := filepath.Join(dir, "quick.json")
	if err := os.WriteFile(quickPath, []byte(quick), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "reproduce", "--only", "outline", "--replications", "20", "--against", quickPath, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var this, other results.Reproduction
	b, _ := os.ReadFile(filepath.Join(out, "reproduced.json"))
	if err := json.Unmarshal(b, &this); err != nil || this.Against == nil {
		t.Fatalf("reproduced.json: %v, against %v", err, this.Against)
	}
	if err := json.Unmarshal([]byte(quick), &other); err != nil {
		t.Fatal(err)
	}
	// Count by hand what the agreement should say.
	outcome := map[string]results.Conclusion{}
	for _, v := range other.Reports[0].Verdicts {
		outcome[v.Row+" "+v.Figure] = v.Outcome
	}
	var judged, alike int
	var apart []string
	for _, v := range this.Reports[0].Verdicts {
		w, ok := outcome[v.Row+" "+v.Figure]
		if !ok || (v.Outcome != results.Consistent && v.Outcome != results.Differs) || (w != results.Consistent && w != results.Differs) {
			continue
		}
		judged++
		if v.Outcome == w {
			alike++
		} else {
			apart = append(apart, v.Row+" "+v.Figure)
		}
	}
	a := this.Against
	if a.Judged != judged || a.Alike != alike || len(a.Apart) != len(apart) || len(apart) == 0 || a.Replications != 1 ||
		a.Command != "notesbench reproduce --replications 1 --only outline" {
		t.Fatalf("against: %+v; by hand %d of %d alike, apart %v", a, alike, judged, apart)
	}
	for i, p := range a.Apart {
		if p.Ours.Row+" "+p.Ours.Figure != apart[i] || p.Ours.Outcome == p.Other.Outcome {
			t.Errorf("apart[%d] = %+v, want %s", i, p, apart[i])
		}
	}
	line := fmt.Sprintf("Against `notesbench reproduce --replications 1 --only outline` (1 replication), %d of %d verdicts alike: %d judged apart", alike, judged, len(apart))
	md, _ := os.ReadFile(filepath.Join(out, "REPRODUCED.md"))
	for _, want := range []string{line + "; the last table lists them.", "### Verdicts judged apart by 20 replications and 1 replication", "| outline | " + a.Apart[0].Ours.Row + " | " + a.Apart[0].Ours.Figure + " |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("REPRODUCED.md lacks %q", want)
		}
	}
	if !strings.Contains(stdout, line+".") {
		t.Errorf("stdout lacks %q", line)
	}
}

// committed reads the committed reproduction: reproduction/reproduced.json and
// the summary lines of reproduction/REPRODUCED.md.
func committed(t *testing.T) (results.Reproduction, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "reproduction", "reproduced.json"))
	if err != nil {
		t.Fatal(err)
	}
	var js results.Reproduction
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join("..", "..", "reproduction", "REPRODUCED.md"))
	if err != nil {
		t.Fatal(err)
	}
	return js, summaryLines(string(md))
}

// summaryLines returns a REPRODUCED.md's summary sentences: the bold line
// and the published-fit one, up to its first full stop.
func summaryLines(md string) []string {
	var out []string
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "**") && strings.Contains(line, "published figures consistent with ours"):
			out = append(out, strings.Trim(line, "*"))
		case strings.HasPrefix(line, "Under the published-fit timing"):
			if i := strings.Index(line, ". "); i >= 0 {
				line = line[:i+1]
			}
			out = append(out, line)
		}
	}
	return out
}

// The README quotes the committed reproduction's summary, which is what its
// JSON counts: the figures consistent of those judged, and under the
// published-fit timing the race and tabs figures under both models.
func TestCommittedReproductionSummary(t *testing.T) {
	js, lines := committed(t)
	tm := js.Timing
	if tm == nil {
		t.Fatal("reproduced.json has no timing models")
	}
	// The sentences as the JSON's counts make them: Summary and TimingModels'
	// Summary are what REPRODUCED.md is written from.
	capital := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] + "." }
	want := []string{capital(js.Summary()), capital(tm.Summary())}
	if !slices.Equal(lines, want) {
		t.Fatalf("REPRODUCED.md's summary:\n%s\nreproduced.json counts:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range want {
		if !strings.Contains(string(readme), "\n> "+l+"\n") {
			t.Errorf("the README does not quote the committed summary %q", l)
		}
	}
}

// timedSections are the headings of REPRODUCED.md's sections whose figures
// are timings of this machine, which no two runs share, and of the
// comparison with another reproduction (make reproduce's --against its quick
// run), which the committed command does not name.
var timedSections = []string{"### Time per edit_note_tab write", "### Ours against the published figures (ratios", "### Verdicts judged apart by "}

// withoutTimings drops from a REPRODUCED.md the lines that describe the
// machine and the version, the sections of timings, and the comparison with
// another reproduction.
func withoutTimings(md string) string {
	var keep []string
	timed, against := false, false
	for _, line := range strings.Split(stripMachine(md), "\n") {
		if strings.HasPrefix(line, "#") {
			timed = slices.ContainsFunc(timedSections, func(h string) bool { return strings.HasPrefix(line, h) })
		}
		switch {
		case strings.HasPrefix(line, "Against `"):
			against = true // the line, and the blank line after it
		case against && line == "":
			against = false
		case !timed:
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// The committed reproduction is what the code makes, unit by unit: a tenth
// of its units — every tenth, shard 1/10 of the command it names — and every
// unit of the experiments that tenth leaves out, run again, each give the
// result whose digest reproduced.json recorded (reproduce --shard
// --against). It runs the units of every experiment and mode at the
// published parameters in some 30 CPU-seconds, where the whole run takes
// seven times the CPU (TestCommittedReproductionIsReproduced).
func TestCommittedReproductionUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("reruns a tenth of the committed reproduction's units, some 30 CPU-seconds")
	}
	testpass.Large(t, "reruns a tenth of the committed reproduction's units")
	t.Parallel()
	js, _ := committed(t)
	args := strings.Fields(js.Command)
	if len(args) < 2 || args[0] != "notesbench" || args[1] != "reproduce" || slices.Contains(args, "--out") || slices.Contains(args, "--shard") {
		t.Fatalf("reproduced.json names the command %q", js.Command)
	}
	against := filepath.Join("..", "..", "reproduction", report.ReproducedJSON)
	const tenth = 10
	// What shard 1/10 checks, step by step, and the steps it checks none of.
	want, offset := map[string]int{}, 0
	var left []string
	for _, st := range js.Units {
		own, has := 0, false
		for _, job := range st.Jobs {
			for u, d := range job {
				if d != "" {
					has = true
					if (results.Shard{Index: 1, Count: tenth}).Owns(offset + u) {
						own++
					}
				}
			}
			offset += len(job)
		}
		want[st.Experiment] = own
		if has && own == 0 {
			left = append(left, st.Experiment)
		}
	}
	checked := func(extra ...string) int {
		t.Helper()
		cmd := append(slices.Clone(args[1:]), extra...)
		cmd = append(cmd, "--against", against, "--out", filepath.Join(t.TempDir(), "shard.json"))
		code, stdout, stderr := runCLI(t, cmd...)
		if code != 0 {
			t.Fatalf("notesbench %s: exit %d: %s%s(make reproduce, and review the diff)", strings.Join(cmd, " "), code, stdout, stderr)
		}
		var n int
		if _, err := fmt.Sscanf(stdout[strings.Index(stdout, "; ")+2:], "%d units checked", &n); err != nil {
			t.Fatalf("notesbench %s printed %q", strings.Join(cmd, " "), stdout)
		}
		return n
	}
	total := 0
	for _, n := range want {
		total += n
	}
	if got := checked("--shard", fmt.Sprintf("1/%d", tenth)); got != total || total == 0 {
		t.Fatalf("shard 1/%d checked %d units, where the committed digests give it %d", tenth, got, total)
	}
	if len(left) == 0 {
		return
	}
	n := 0
	for _, st := range js.Units {
		if slices.Contains(left, st.Experiment) {
			for _, job := range st.Jobs {
				for _, d := range job {
					if d != "" {
						n++
					}
				}
			}
		}
	}
	if got := checked("--only", strings.Join(left, ","), "--shard", "1/1"); got != n {
		t.Fatalf("--only %s checked %d units, where the committed digests give it %d", strings.Join(left, ","), got, n)
	}
}

// The committed reproduction is what the code makes, whole: the command it
// names, run again as two shards at once and merged, writes the same
// REPRODUCED.md, every table, verdict and summary, timings of this machine
// aside. So it also holds a reproduction's shards, merged, to the whole
// run at the published parameters (TestReproduceShardsMerge holds the merge
// of other counts of shards on two experiments). It runs every experiment
// at the published parameters with 100 replications, 224 CPU-seconds on two
// cores: make reproduce-check runs it (NOTESBENCH_REPRODUCTION=whole); the
// test passes check its units (TestCommittedReproductionUnits).
func TestCommittedReproductionIsReproduced(t *testing.T) {
	if os.Getenv("NOTESBENCH_REPRODUCTION") != "whole" {
		t.Skip("reruns the whole committed reproduction: make reproduce-check (NOTESBENCH_REPRODUCTION=whole)")
	}
	t.Parallel()
	js, _ := committed(t)
	args := strings.Fields(js.Command)
	if len(args) < 2 || args[0] != "notesbench" || args[1] != "reproduce" || slices.Contains(args, "--out") || slices.Contains(args, "--shard") {
		t.Fatalf("reproduced.json names the command %q", js.Command)
	}
	dir := t.TempDir()
	const shards = 2
	files := make([]string, shards)
	errs := make([]string, shards)
	var wg sync.WaitGroup
	for k := range shards {
		files[k] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", k+1))
		wg.Go(func() {
			code, _, stderr := runCLI(t, append(slices.Clone(args[1:]), "--shard", fmt.Sprintf("%d/%d", k+1, shards), "--out", files[k])...)
			if code != 0 {
				errs[k] = fmt.Sprintf("%s --shard %d/%d: exit %d: %s", js.Command, k+1, shards, code, stderr)
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, append([]string{"merge", "--out", out}, files...)...); code != 0 {
		t.Fatalf("merge of the shards of %s: exit %d: %s", js.Command, code, stderr)
	}
	fresh, err := os.ReadFile(filepath.Join(out, "REPRODUCED.md"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(filepath.Join("..", "..", "reproduction", "REPRODUCED.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, want := withoutTimings(string(fresh)), withoutTimings(string(old))
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("%s no longer makes the committed reproduction (make reproduce, and review the diff): line %d of REPRODUCED.md, timings aside:\ncommitted: %s\nnow:       %s", js.Command, i+1, wl[i], gl[i])
		}
	}
	t.Fatalf("%s no longer makes the committed reproduction (make reproduce, and review the diff): %d lines of REPRODUCED.md, committed %d", js.Command, len(gl), len(wl))
}

// writeJSONFile writes v to file as JSON.
func writeJSONFile(t *testing.T, file string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
