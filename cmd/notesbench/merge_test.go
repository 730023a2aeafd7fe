package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Bad input to merge is one line naming the file and what is wrong with it,
// in the file's words, exit 2: the same history twice (whose runs check
// would count twice), a format the experiment does not print, a shard whose
// index is not one of its run's, and files that are no shard — never a Go
// type.
func TestMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	run := func(args ...string) {
		t.Helper()
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	h := filepath.Join(dir, "h.jsonl")
	run("race", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--history", h, "--format", "json")
	b, err := os.ReadFile(h)
	if err != nil {
		t.Fatal(err)
	}
	copied := file("copy.jsonl", string(b))
	race := []string{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "3", "--replications", "0"}
	s1, s2 := filepath.Join(dir, "s1.json"), filepath.Join(dir, "s2.json")
	run(append(slices.Clone(race), "--shard", "1/2", "--out", s1)...)
	run(append(slices.Clone(race), "--shard", "2/2", "--out", s2)...)
	index := func(i int) string {
		b, err := os.ReadFile(s2)
		if err != nil {
			t.Fatal(err)
		}
		var rec map[string]any
		json.Unmarshal(b, &rec)
		rec["shard"].(map[string]any)["index"] = i
		b, _ = json.Marshal(rec)
		return file(fmt.Sprintf("index%d.json", i), string(b))
	}
	out := filepath.Join(dir, "m.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out, h, h}, h + ": the same history as " + h + ": given twice, every run of it would be checked twice"},
		{[]string{h, copied}, copied + ": the same history as " + h + ": given twice"},
		{[]string{"--format", "gobench", s1, s2}, `--format: unknown format "gobench" (want table, markdown, csv or json)`},
		{[]string{s1, index(-1)}, filepath.Join(dir, "index-1.json") + ": shard -1/2: K must be 1 to 2"},
		{[]string{index(99), s1}, filepath.Join(dir, "index99.json") + ": shard 99/2: K must be 1 to 2"},
		{[]string{file("array.json", "[1, 2]")}, filepath.Join(dir, "array.json") + ": not a notesbench shard or history: a JSON array where an object is wanted"},
		{[]string{file("number.json", `{"experiment": 5}`)}, filepath.Join(dir, "number.json") + ": not a notesbench shard or history: experiment: a JSON number where a string is wanted"},
		{[]string{file("text.json", "hello\n")}, filepath.Join(dir, "text.json") + ": not a notesbench shard or history: not JSON (invalid character 'h' looking for beginning of value)"},
		{[]string{file("empty.json", "")}, filepath.Join(dir, "empty.json") + ": not a notesbench shard or history: the file is empty"},
		{[]string{file("cut.json", `{"experiment": "race", "shard": {"index": 1`)}, filepath.Join(dir, "cut.json") + ": not a notesbench shard or history: the JSON ends early: the file is cut short"},
		{[]string{filepath.Join(dir, "missing.json")}, filepath.Join(dir, "missing.json") + ": no such file or directory"},
	} {
		expectUsageError(t, append([]string{"merge"}, tc.args...), "notesbench: "+tc.want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote --out: %v", err)
	}
}

// failingWriter fails every write, as a full disk or a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A merge that fails with no input bad is exit 1, not 2: here, writing the
// merged history fails.
func TestMergeFailureIsNoUsageError(t *testing.T) {
	dir := t.TempDir()
	var hs []string
	for _, seed := range []string{"1", "2"} {
		h := filepath.Join(dir, "h"+seed+".jsonl")
		if code, _, stderr := runCLI(t, "race", "--clock", "virtual", "--seeds", seed, "--edits", "3", "--history", h, "--format", "json"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		hs = append(hs, h)
	}
	var stderr bytes.Buffer
	if code := run(append([]string{"merge"}, hs...), strings.NewReader(""), failingWriter{}, &stderr); code != 1 ||
		!strings.HasPrefix(stderr.String(), "notesbench: no space left on device\n") {
		t.Fatalf("exit %d, stderr %q; want 1", code, stderr.String())
	}
}

// The shards of a run against a server, notesbench serve built from this
// tree, merge into a result of the rows and runs of the run unsharded: the
// modes the server serves (note/reapply, note/refresh) rather than the
// published setup's, read back from the configuration the shards recorded
// (the merge once rebuilt them from the flags given, and failed with "no
// runs of none to fold", exit 2). On the real clock the
// counts of two runs differ: the merge holds every run the shards ran, as
// they ran it.
func TestMergeShardsOfATarget(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("builds the binary and runs against it on the real clock")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	bin := buildNotesbench(t)
	dir := t.TempDir()
	target := "stdio:'" + bin + "' serve --db '" + filepath.Join(dir, "notes.db") + "'"
	race := []string{"race", "--target", target, "--seeds", "1-3", "--edits", "3", "--claude-think", "1ms", "--human-think", "1ms", "--replications", "0"}
	code, whole, stderr := runCLI(t, append(slices.Clone(race), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var files, parts []string
	for k := 1; k <= 2; k++ {
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		if code, _, stderr := runCLI(t, append(slices.Clone(race), "--shard", fmt.Sprintf("%d/2", k), "--out", f)...); code != 0 {
			t.Fatalf("shard %d/2: exit %d: %s", k, code, stderr)
		}
		files = append(files, f)
		b, _ := os.ReadFile(f)
		var rec struct {
			Parts []struct {
				Runs []json.RawMessage `json:"runs"`
			} `json:"parts"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		for _, p := range rec.Parts {
			for _, r := range p.Runs {
				parts = append(parts, withoutTiming(t, string(r)))
			}
		}
	}
	code, merged, stderr := runCLI(t, append([]string{"merge", "--format", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	type result struct {
		Rows []struct{ Guard, Policy string } `json:"rows"`
		Runs []json.RawMessage                `json:"runs"`
	}
	var w, m result
	if err := json.Unmarshal([]byte(whole), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(merged), &m); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(m.Rows) != fmt.Sprint(w.Rows) || len(m.Rows) != 2 || m.Rows[0].Guard != "note" {
		t.Fatalf("merged rows %v, the run's %v", m.Rows, w.Rows)
	}
	key := func(runs []json.RawMessage) (keys, whole []string) {
		for _, r := range runs {
			var k struct {
				Seed          uint64
				Guard, Policy string
			}
			json.Unmarshal(r, &k)
			keys, whole = append(keys, fmt.Sprint(k)), append(whole, withoutTiming(t, string(r)))
		}
		sort.Strings(keys)
		sort.Strings(whole)
		return keys, whole
	}
	wk, _ := key(w.Runs)
	mk, mruns := key(m.Runs)
	sort.Strings(parts)
	if !slices.Equal(mk, wk) || !slices.Equal(mruns, parts) {
		t.Fatalf("merged runs %v, the run's %v; or not the runs the shards ran", mk, wk)
	}

	// Shards whose configuration does not read back (modes no guard and
	// policy make) cannot be put together: the merge names the file, exit 2.
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var rec map[string]any
		json.Unmarshal(b, &rec)
		rec["config"].(map[string]any)["modes"] = []string{"note/bogus"}
		b, _ = json.Marshal(rec)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr = runCLI(t, append([]string{"merge", "--format", "json"}, files...)...)
	if want := "notesbench: " + files[0] + `: the configuration recorded: "note/bogus": `; code != 2 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, %q; want 2 and %q", code, stderr, want)
	}
}

// An output that is one of the files a command reads is refused before
// anything is written, however its path is spelt, through a link too: merge
// --out s1.json once overwrote its own input, exit 0. The inputs are left as
// they were.
func TestOutputIsNoInput(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	race := []string{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "3", "--replications", "0"}
	s1, s2 := filepath.Join(dir, "s1.json"), filepath.Join(dir, "s2.json")
	run(append(slices.Clone(race), "--shard", "1/2", "--out", s1)...)
	run(append(slices.Clone(race), "--shard", "2/2", "--out", s2)...)
	h1, h2 := filepath.Join(dir, "h1.jsonl"), filepath.Join(dir, "h2.jsonl")
	run("race", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--modes", "note/reapply", "--replications", "0", "--history", h1, "--format", "json")
	run("race", "--clock", "virtual", "--seeds", "2", "--edits", "3", "--replications", "0", "--history", h2, "--format", "json")
	checked := filepath.Join(dir, "checked.json")
	run("check", h1, "--format", "json", "--out", checked)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(s1, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	before := map[string][]byte{}
	for _, f := range []string{s1, s2, h1, h2, checked} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		before[f] = b
	}
	other := filepath.Join(dir, "sub", "..", "s1.json")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	// A reproduction's folder, its reproduced.json given to --against.
	reproduced := filepath.Join(dir, "sub", "reproduced.json")
	if err := os.WriteFile(reproduced, before[checked], 0o644); err != nil {
		t.Fatal(err)
	}
	before[reproduced] = before[checked]
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", s1, s2, "--out", s1}, "--out: " + s1 + " is an input (" + s1 + ")"},
		{[]string{"merge", s1, s2, "--out", other}, "--out: " + other + " is an input (" + s1 + ")"},
		{[]string{"merge", s1, s2, "--out", link}, "--out: " + link + " is an input (" + s1 + ")"},
		{[]string{"merge", link, s2, "--update-baseline", s1}, "--update-baseline: " + s1 + " is an input (" + link + ")"},
		{[]string{"merge", "--out", h2, h1, h2}, "--out: " + h2 + " is an input (" + h2 + ")"},
		{[]string{"check", checked, "--out", checked}, "--out: " + checked + " is an input (" + checked + ")"},
		{append(slices.Clone(race), "--baseline", s1, "--out", link), "--out: " + link + " is an input (--baseline " + s1 + ")"},
		{[]string{"reproduce", "--quick", "--out", filepath.Join(dir, "sub"), "--against", reproduced},
			"--out: " + reproduced + " is an input (--against " + reproduced + ")"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, "notesbench: "+tc.want+": writing it would overwrite what is read; name another file")
		})
	}
	for f, b := range before {
		if got, _ := os.ReadFile(f); !bytes.Equal(got, b) {
			t.Errorf("%s was overwritten", f)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 7 {
		t.Errorf("files left in %s: %v", dir, entries)
	}
}
