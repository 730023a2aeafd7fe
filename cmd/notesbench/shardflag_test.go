package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// --shard index=I/N is shard I+1 of N: the same result, for a Kubernetes
// Indexed Job's 0-based JOB_COMPLETION_INDEX; a bad one is one line.
func TestShardByIndex(t *testing.T) {
	race := []string{"race", "--clock", "virtual", "--seeds", "1-3", "--edits", "6", "--replications", "0"}
	dir := t.TempDir()
	for i := range 3 {
		byIndex, byNumber := filepath.Join(dir, fmt.Sprintf("i%d.json", i)), filepath.Join(dir, fmt.Sprintf("k%d.json", i+1))
		for _, run := range [][]string{{"--shard", fmt.Sprintf("index=%d/3", i), "--out", byIndex}, {"--shard", fmt.Sprintf("%d/3", i+1), "--out", byNumber}} {
			if code, _, stderr := runCLI(t, append(slices.Clone(race), run...)...); code != 0 {
				t.Fatalf("%q: exit %d: %s", run, code, stderr)
			}
		}
		a, _ := os.ReadFile(byIndex)
		b, _ := os.ReadFile(byNumber)
		if got, want := withoutTiming(t, string(a)), withoutTiming(t, string(b)); got != want {
			t.Errorf("index=%d/3 ran\n%s\nnot shard %d/3's\n%s", i, got, i+1, want)
		}
	}
	for _, tc := range []struct{ shard, want string }{
		{"index=3/3", `notesbench: --shard: "index=3/3": I must be 0 to 2`},
		{"index=-1/3", `notesbench: --shard: "index=-1/3": I must be 0 to 2`},
		{"index=0/0", `notesbench: --shard: "index=0/0": N must be 1 to 10000`},
		// Kubernetes leaves $(VAR) as written when the pod has no VAR: a Job
		// that is not Indexed.
		{"index=$(JOB_COMPLETION_INDEX)/3", `notesbench: --shard: "index=$(JOB_COMPLETION_INDEX)/3" is not index=I/N (such as index=1/4)`},
	} {
		expectUsageError(t, append(slices.Clone(race), "--shard", tc.shard), tc.want)
	}
	expectUsageError(t, []string{"reproduce", "--quick", "--shard", "index=2/2"}, `notesbench: --shard: "index=2/2": I must be 0 to 1`)
}

// merge FOLDER merges the shards in the folder, as the pods of a Job leave
// them on a volume: not the folder's hidden files (one being written), its
// folders (lost+found), other files, nor the result a merge before wrote
// there, so that the merge can run again.
func TestMergeFolder(t *testing.T) {
	race := []string{"race", "--clock", "virtual", "--seeds", "1-3", "--edits", "6", "--replications", "0"}
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	if err := os.MkdirAll(filepath.Join(results, "lost+found"), 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i := range 2 {
		f := filepath.Join(results, fmt.Sprintf("shard-%d.json", i))
		if code, _, stderr := runCLI(t, append(slices.Clone(race), "--shard", fmt.Sprintf("index=%d/2", i), "--out", f)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		files = append(files, f)
	}
	for name, text := range map[string]string{".shard-2.json.tmp-123": "{", "notes.txt": "not a shard"} {
		if err := os.WriteFile(filepath.Join(results, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, want, stderr := runCLI(t, append([]string{"merge", "--format", "markdown"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	merged := filepath.Join(results, "merged.json")
	for range 2 { // the second time, merged.json is in the folder
		code, got, stderr := runCLI(t, "merge", "--format", "markdown", "--out", merged, results)
		if code != 0 || got != want {
			t.Fatalf("merge of the folder: exit %d: %s\n%s\nnot\n%s", code, stderr, got, want)
		}
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	expectUsageError(t, []string{"merge", empty}, "notesbench: "+empty+": a folder with no .json or .jsonl file to merge")
}
