package experiment_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// A folder stands for the .json and .jsonl files in it, by name: not its
// hidden files, its folders, other files, nor a file the merge writes.
func TestMergeFilesExpandsFolders(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.json", "a.jsonl", ".part.json", "notes.txt", "out.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := experiment.MergeFiles([]string{"x.json", dir}, "", filepath.Join(dir, "out.json"))
	if want := []string{"x.json", filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.json")}; err != nil || !slices.Equal(files, want) {
		t.Errorf("%q, %v; want %q", files, err, want)
	}
	// A folder with nothing to merge is bad input, naming it.
	empty := t.TempDir()
	_, err = experiment.MergeFiles([]string{empty})
	var me *results.MergeError
	if !errors.As(err, &me) || err.Error() != empty+": a folder with no .json or .jsonl file to merge" {
		t.Errorf("an empty folder: %v", err)
	}
}

// The files of a merge are read and told apart: histories, the shards of a
// run, or those of a reproduction; a file that does not read, and histories
// among results, are bad input.
func TestReadMergeInputsTellsWhatTheFilesHold(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	shard, repro := write("s1.json", `{"experiment": "race"}`), write("r1.json", `{"experiment": "reproduce"}`)
	hist := filepath.Join(dir, "h.jsonl")
	if err := history.NewWriter(history.Header{Experiment: "race"}).WriteFile(hist); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files []string
		kind  experiment.MergeKind
	}{
		{[]string{shard}, experiment.MergeShards},
		{[]string{repro, shard}, experiment.MergeReproduction},
		{[]string{hist, hist}, experiment.MergeHistories},
	} {
		in, err := experiment.ReadMergeInputs(tc.files)
		if err != nil || in.Kind != tc.kind || !slices.Equal(in.Files, tc.files) || len(in.Data) != len(tc.files) {
			t.Errorf("%q: %+v, %v; want kind %d", tc.files, in, err, tc.kind)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{shard, missing}, missing + ": no such file or directory"},
		{[]string{dir}, dir + " is a folder"},
		{[]string{hist, shard}, "merge takes shards' results or histories, not both"},
		{[]string{shard, hist}, "merge takes shards' results or histories, not both"},
	} {
		_, err := experiment.ReadMergeInputs(tc.files)
		var me *results.MergeError
		if !errors.As(err, &me) || err.Error() != tc.want {
			t.Errorf("%q: %v, want the merge error %q", tc.files, err, tc.want)
		}
	}
}
