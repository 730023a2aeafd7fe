package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
)

// shardedRuns are runs of every experiment with replications behind their
// verdicts where they have any: what the shards must put back together.
var shardedRuns = [][]string{
	{"race", "--clock", "virtual", "--seeds", "1-3", "--edits", "6", "--replications", "3"},
	{"race", "--clock", "virtual", "--edits", "6", "--modes", "note/reapply", "--replications", "0"},
	{"tabs", "--clock", "virtual", "--seeds", "1-2", "--edits", "6", "--replications", "0"},
	{"fast", "--clock", "virtual", "--seeds", "1-3", "--edits", "30", "--replications", "0"},
	{"create", "--tabs", "6", "--replications", "3"},
	{"sources", "--sessions", "4", "--replications", "2"},
	{"refs", "--trials", "40"},
	{"outline", "--slides", "3", "--decks", "20", "--replications", "5"},
	{"validate"},
}

// withoutTiming returns a result's JSON with its timing fields (and the
// per-write latencies of bench) left out: what differs between two runs on
// the wall clock, never on the virtual one.
func withoutTiming(t *testing.T, data string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var strip func(any)
	strip = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, y := range x {
				if results.TimingKey(k) || k == "machine" {
					delete(x, k)
					continue
				}
				strip(y)
			}
		case []any:
			for _, y := range x {
				strip(y)
			}
		}
	}
	strip(v)
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// Shards of a run merge into the run: in 1, 2 and 4 shards, every
// experiment's merged JSON equals the unsharded one but for timing fields
// (none, on the virtual clock), and its table too. Under the race detector,
// ten times slower, in 4 shards alone (for these runs, shards a unit of
// work apart and shards of none): make test-large merges all three splits.
func TestShardsMergeIntoTheRun(t *testing.T) {
	splits := []int{1, 2, 4}
	if testpass.Race {
		splits = []int{4}
	}
	for _, args := range shardedRuns {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, whole, stderr := runCLI(t, append(slices.Clone(args), "--format", "json")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			_, wholeMD, _ := runCLI(t, append(slices.Clone(args), "--format", "markdown")...)
			for _, n := range splits {
				dir := t.TempDir()
				var files []string
				for k := 1; k <= n; k++ {
					f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
					if code, _, stderr := runCLI(t, append(slices.Clone(args), "--shard", fmt.Sprintf("%d/%d", k, n), "--out", f)...); code != 0 {
						t.Fatalf("shard %d/%d: exit %d: %s", k, n, code, stderr)
					}
					files = append(files, f)
				}
				// In any order.
				slices.Reverse(files)
				code, merged, stderr := runCLI(t, append([]string{"merge", "--format", "json"}, files...)...)
				if code != 0 {
					t.Fatalf("merge of %d: exit %d: %s", n, code, stderr)
				}
				if got, want := withoutTiming(t, merged), withoutTiming(t, whole); got != want {
					t.Errorf("%d shards merge into\n%s\nnot\n%s", n, got, want)
				}
				_, mergedMD, _ := runCLI(t, append([]string{"merge", "--format", "markdown"}, files...)...)
				if mergedMD != wholeMD {
					t.Errorf("%d shards' table\n%s\nnot\n%s", n, mergedMD, wholeMD)
				}
			}
		})
	}
}

// A reproduction merges from its shards into the reproduction.
func TestReproduceShardsMerge(t *testing.T) {
	// Two experiments, whole and in 1, 2 and 4 shards: the committed
	// reproduction, rerun as two shards (TestCommittedReproductionIsReproduced,
	// make reproduce-check), holds every experiment's shards to the whole
	// run, and TestCommittedReproductionUnits a tenth of their units.
	only, counts := "outline,validate", []int{1, 2, 4}
	args := []string{"reproduce", "--quick", "--replications", "2", "--only", only}
	code, whole, stderr := runCLI(t, append(slices.Clone(args), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, n := range counts {
		dir := t.TempDir()
		var files []string
		for k := 1; k <= n; k++ {
			f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
			if code, _, stderr := runCLI(t, append(slices.Clone(args), "--shard", fmt.Sprintf("%d/%d", k, n), "--out", f)...); code != 0 {
				t.Fatalf("shard %d/%d: exit %d: %s", k, n, code, stderr)
			}
			files = append(files, f)
		}
		out := filepath.Join(dir, "reproduction")
		code, merged, stderr := runCLI(t, append([]string{"merge", "--format", "json", "--out", out}, files...)...)
		if code != 0 {
			t.Fatalf("merge of %d: exit %d: %s", n, code, stderr)
		}
		if got, want := withoutTiming(t, merged), withoutTiming(t, whole); got != want {
			t.Errorf("%d shards merge into a reproduction of other figures", n)
		}
		if _, err := os.Stat(filepath.Join(out, "REPRODUCED.md")); err != nil {
			t.Errorf("merge --out wrote no reproduction: %v", err)
		}
	}
}

// Bad merges are one line naming the file, exit 2: a shard missing, a shard
// given twice, shards of different runs or versions, a truncated file, a
// file that is no shard.
func TestBadMerges(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, args ...string) string {
		t.Helper()
		f := filepath.Join(dir, name)
		if code, _, stderr := runCLI(t, append(args, "--out", f)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return f
	}
	race := []string{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "5", "--replications", "0"}
	s1 := shard("s1.json", append(slices.Clone(race), "--shard", "1/2")...)
	s2 := shard("s2.json", append(slices.Clone(race), "--shard", "2/2")...)
	other := shard("other.json", "race", "--clock", "virtual", "--seeds", "1-2", "--edits", "6", "--replications", "0", "--shard", "2/2")
	tabs := shard("tabs.json", "tabs", "--clock", "virtual", "--seeds", "1-2", "--edits", "5", "--replications", "0", "--shard", "2/2")
	whole := shard("whole.json", race...)
	b, _ := os.ReadFile(s2)
	truncated := filepath.Join(dir, "truncated.json")
	os.WriteFile(truncated, b[:len(b)/2], 0o644)
	var rec map[string]any
	json.Unmarshal(b, &rec)
	rec["notesbench_version"] = "v0.0.0-elsewhere"
	b, _ = json.Marshal(rec)
	version := filepath.Join(dir, "version.json")
	os.WriteFile(version, b, 0o644)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{s1}, "notesbench: shard 2/2 missing: every shard of the run is needed"},
		{[]string{s1, s2, s2}, "notesbench: " + s2 + ": shard 2/2 is given twice (also " + s2 + ")"},
		{[]string{s1, other}, "notesbench: " + other + ": not a shard of the same run as " + s1 + ": parameters"},
		{[]string{s1, tabs}, "notesbench: " + tabs + ": not a shard of the same run as " + s1 + ": experiment tabs, not race"},
		{[]string{s1, version}, "notesbench: " + version + ": not a shard of the same run as " + s1 + ": notesbench v0.0.0-elsewhere"},
		{[]string{s1, truncated}, "notesbench: " + truncated + ": not a notesbench shard or history: the JSON ends early: the file is cut short"},
		{[]string{s1, whole}, "notesbench: " + whole + ": not a shard"},
	} {
		expectUsageError(t, append([]string{"merge"}, tc.files...), tc.want)
	}
	expectUsageError(t, append(slices.Clone(race), "--shard", "3/2"), `notesbench: --shard: "3/2": K must be 1 to 2`)
	expectUsageError(t, append(slices.Clone(race), "--shard", "1/2", "--baseline", whole), "notesbench: --baseline: a shard holds part of the run")
}

// A reproduction of bench merges from its shards with bench's comparison:
// every published median and p99 judged as a ratio, as unsharded, never
// "no data" (the shards' rows lost the repetitions' medians and p99s, which
// their JSON leaves out). Bench's timings differ from run to run; what is
// judged, and how, does not.
func TestReproduceShardsMergeBench(t *testing.T) {
	if testing.Short() {
		t.Skip("times bench's reproduction whole and in shards, on the real clock: make test-large runs it")
	}
	testpass.Large(t, "times bench's reproduction whole and in shards, on the real clock")
	args := []string{"reproduce", "--quick", "--only", "bench"}
	verdicts := func(data string) string {
		t.Helper()
		var rec struct {
			Reports []struct {
				Verdicts []struct {
					Figure, Row, Verdict, Method string
					N                            int
					Ratio                        *float64
				} `json:"verdicts"`
			} `json:"reports"`
			Judged, Consistent int
		}
		if err := json.Unmarshal([]byte(data), &rec); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rec.Reports {
			for _, v := range r.Verdicts {
				out = append(out, fmt.Sprintf("%s %s %s %s n=%d ratio=%t", v.Figure, v.Row, v.Verdict, v.Method, v.N, v.Ratio != nil))
			}
		}
		return fmt.Sprintf("%s; judged %d, consistent %d", strings.Join(out, "; "), rec.Judged, rec.Consistent)
	}
	code, whole, stderr := runCLI(t, append(slices.Clone(args), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := verdicts(whole)
	if !strings.Contains(want, "median_us none ratio") || strings.Contains(want, "no data") {
		t.Fatalf("the unsharded reproduction judges %s", want)
	}
	dir := t.TempDir()
	var files []string
	for k := 1; k <= 2; k++ {
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		if code, _, stderr := runCLI(t, append(slices.Clone(args), "--shard", fmt.Sprintf("%d/2", k), "--out", f)...); code != 0 {
			t.Fatalf("shard %d/2: exit %d: %s", k, code, stderr)
		}
		files = append(files, f)
	}
	code, merged, stderr := runCLI(t, append([]string{"merge", "--format", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if got := verdicts(merged); got != want {
		t.Errorf("merged shards judge\n%s\nnot, as unsharded,\n%s", got, want)
	}
	_, md, _ := runCLI(t, append([]string{"merge", "--format", "markdown"}, files...)...)
	if strings.Contains(md, "no data") || strings.Contains(md, "n/a") {
		t.Errorf("merged bench section without its comparison:\n%s", md)
	}
}

// Shards that ran with another --parallel merge: how each ran may differ
// (the merge compared the flags given, and refused "parameters
// map[…parallel:2…]").
func TestShardsOfOtherParallelMerge(t *testing.T) {
	race := []string{"race", "--clock", "virtual", "--seeds", "1-3", "--edits", "6", "--replications", "2"}
	code, whole, stderr := runCLI(t, append(slices.Clone(race), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	var files []string
	for k, parallel := range []string{"1", "3"} {
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k+1))
		if code, _, stderr := runCLI(t, append(slices.Clone(race), "--parallel", parallel, "--shard", fmt.Sprintf("%d/2", k+1), "--out", f)...); code != 0 {
			t.Fatalf("shard %d/2: exit %d: %s", k+1, code, stderr)
		}
		files = append(files, f)
	}
	code, merged, stderr := runCLI(t, append([]string{"merge", "--format", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	var w, m struct {
		Rows     json.RawMessage `json:"rows"`
		Runs     json.RawMessage `json:"runs"`
		Verdicts json.RawMessage `json:"verdicts"`
	}
	json.Unmarshal([]byte(whole), &w)
	json.Unmarshal([]byte(merged), &m)
	if string(m.Rows) != string(w.Rows) || string(m.Runs) != string(w.Runs) || string(m.Verdicts) != string(w.Verdicts) {
		t.Errorf("merged\n%s\nnot\n%s", merged, whole)
	}
}
