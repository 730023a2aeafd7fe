package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const baselineRace = `{
  "experiment": "race",
  "config": {"seeds": "1-5", "clock": "virtual"},
  "rows": [
    {"guard": "none", "policy": "reapply", "lost": 300, "wall_s": 0.41, "mean_tries_claude": 1.0},
    {"guard": "note", "policy": "reapply", "lost": 0, "wall_s": 0.43, "mean_tries_claude": 1.44}
  ],
  "notesbench_version": "v0.1.0"
}`

// diffStrings runs compareJSON and returns the diffs as strings.
func diffStrings(t *testing.T, baseline, current string, ignore func(string) bool) []string {
	t.Helper()
	diffs, err := compareJSON([]byte(baseline), []byte(current), ignore)
	if err != nil {
		t.Fatalf("compareJSON: %v", err)
	}
	var out []string
	for _, d := range diffs {
		out = append(out, d.String())
	}
	return out
}

// expectDiffs compares current with baseline, ignore leaving keys out, and
// checks that the differences are want, in order.
func expectDiffs(t *testing.T, baseline, current string, ignore func(string) bool, want ...string) {
	t.Helper()
	if got := diffStrings(t, baseline, current, ignore); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diffs =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompareJSONSame(t *testing.T) {
	if got := diffStrings(t, baselineRace, baselineRace, TimingKey); len(got) != 0 {
		t.Errorf("identical results differ: %q", got)
	}
}

func TestCompareJSONCountChanged(t *testing.T) {
	current := strings.Replace(baselineRace, `"lost": 0`, `"lost": 3`, 1)
	expectDiffs(t, baselineRace, current, TimingKey, "rows[1].lost: baseline 0, now 3")
}

func TestCompareJSONIgnoresTiming(t *testing.T) {
	current := strings.NewReplacer(`"wall_s": 0.41`, `"wall_s": 9.9`, `"v0.1.0"`, `"v0.2.0"`).Replace(baselineRace)
	if got := diffStrings(t, baselineRace, current, TimingKey); len(got) != 0 {
		t.Errorf("timing changes were reported: %q", got)
	}
	// Without the filter the same change is two diffs, in sorted key order.
	expectDiffs(t, baselineRace, current, nil, `notesbench_version: baseline "v0.1.0", now "v0.2.0"`, "rows[0].wall_s: baseline 0.41, now 9.9")
}

func TestCompareJSONNumbersAsWritten(t *testing.T) {
	current := strings.Replace(baselineRace, `"mean_tries_claude": 1.0`, `"mean_tries_claude": 1`, 1)
	expectDiffs(t, baselineRace, current, TimingKey, "rows[0].mean_tries_claude: baseline 1.0, now 1")
}

func TestCompareJSONArrayLength(t *testing.T) {
	base := `{"rows": [{"lost": 1}, {"lost": 2}]}`
	longer := `{"rows": [{"lost": 1}, {"lost": 2}, {"lost": 3, "wall_s": 1}]}`
	expectDiffs(t, base, longer, TimingKey, `rows[2]: baseline absent, now {"lost":3,"wall_s":1}`)
	expectDiffs(t, longer, base, TimingKey, `rows[2]: baseline {"lost":3,"wall_s":1}, now absent`)
}

func TestCompareJSONKeysAndTypes(t *testing.T) {
	base := `{"a": 1, "b": {"x": [1, 2]}, "c": "s", "odd.key": 1}`
	cur := `{"a": "1", "b": {"x": {"0": 1}}, "d": null, "odd.key": 2}`
	expectDiffs(t, base, cur, nil,
		`a: baseline 1, now "1"`,
		`b.x: baseline [1,2], now {"0":1}`,
		`c: baseline "s", now absent`,
		`d: baseline absent, now null`,
		`["odd.key"]: baseline 1, now 2`,
	)
	if got := diffStrings(t, `1`, `2`, nil); len(got) != 1 || got[0] != "(top level): baseline 1, now 2" {
		t.Errorf("top-level diff = %q", got)
	}
	long := strings.Repeat("x", 80)
	if got := diffStrings(t, `{"k": "`+long+`"}`, `{}`, nil); len(got) != 1 || got[0] != `k: baseline "`+strings.Repeat("x", 58)+`…, now absent` {
		t.Errorf("long value = %q", got)
	}
}

func TestCompareJSONMalformed(t *testing.T) {
	for _, tc := range []struct{ base, cur, want string }{
		{`{"rows": [}`, `{}`, "baseline: invalid character '}' looking for beginning of value"},
		{`{}`, `{"rows": 1} x`, "current: invalid character 'x' after top-level value"},
		{``, `{}`, "baseline: empty input"},
	} {
		_, err := compareJSON([]byte(tc.base), []byte(tc.cur), TimingKey)
		if err == nil || err.Error() != tc.want {
			t.Errorf("compareJSON(%q, %q) error = %v, want %q", tc.base, tc.cur, err, tc.want)
		}
	}
}

func TestTimingKey(t *testing.T) {
	for key, want := range map[string]bool{
		"wall_s": true, "median_us": true, "p99_us": true, "elapsed_ns": true, "think_ms": true,
		"writes_per_s": true, "elapsed": true, "notesbench_version": true, "generated_at": true,
		"lost": false, "runs_with_loss": false, "mean_tries_claude": false, "writes": false, "seeds": false,
	} {
		if got := TimingKey(key); got != want {
			t.Errorf("TimingKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// A baseline of other seeds names them as the formatter writes them, not as
// JSON lists of every seed; other keys stay JSON.
func TestParameterDiffsWritesSeeds(t *testing.T) {
	baseline := []byte(`{"config": {"seeds": [1, 2, 3, 4, 5], "edits": 100}}`)
	config := map[string]any{"seeds": []uint64{1, 2, 3}, "edits": 10}
	ends := func(s []uint64) string { return fmt.Sprintf("%d..%d", s[0], s[len(s)-1]) }
	diffs, err := ParameterDiffs(baseline, config, false, ends)
	if err != nil || strings.Join(diffs, "; ") != "edits 100 vs 10; seeds 1..5 vs 1..3" {
		t.Fatalf("%q %v", diffs, err)
	}
	if diffs, _ := ParameterDiffs(baseline, config, false, nil); strings.Join(diffs, "; ") != "edits 100 vs 10; seeds [1,2,3,4,5] vs [1,2,3]" {
		t.Fatalf("without a formatter: %q", diffs)
	}
}

// A baseline that cannot stand for the run is refused before anything runs,
// each reason in a line of its own naming the file.
func TestReadBaselineSaysWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	race, tabs, broken := write("race.json", baselineRace), write("tabs.json", `{"experiment": "tabs"}`), write("broken.json", "not json")
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.json"), "stat " + filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{dir, dir + " is a folder"},
		{broken, broken + " is not a notesbench JSON result: invalid character 'o' in literal null (expecting 'u')"},
		{tabs, tabs + ` holds a "tabs" result, not race`},
	} {
		if b, err := ReadBaseline(tc.path, "race"); err == nil || err.Error() != tc.want || b != nil {
			t.Errorf("%s: %v, want %s", tc.path, err, tc.want)
		}
	}
	b, err := ReadBaseline(race, "race")
	if err != nil || b.Path != race || string(b.JSON) != baselineRace {
		t.Fatalf("a race baseline: %+v, %v", b, err)
	}
}

// A run of other parameters than its baseline's cannot be compared with it:
// the error says which, seeds as the formatter writes them.
func TestBaselineCheckParameters(t *testing.T) {
	b := &Baseline{Path: "race.json", JSON: []byte(`{"config": {"seeds": [1, 2], "edits": 5}}`)}
	seeds := func(s []uint64) string { return fmt.Sprintf("%d-%d", s[0], s[len(s)-1]) }
	if err := b.CheckParameters(map[string]any{"seeds": []uint64{1, 2}, "edits": 5}, false, seeds); err != nil {
		t.Errorf("the same parameters: %v", err)
	}
	err := b.CheckParameters(map[string]any{"seeds": []uint64{1, 3}, "edits": 5}, false, seeds)
	if want := "race.json was recorded with other parameters: seeds 1-2 vs 1-3"; err == nil || err.Error() != want {
		t.Errorf("other seeds: %v, want %s", err, want)
	}
	bad := &Baseline{Path: "bad.json", JSON: []byte(`{"config": 1}`)}
	if err := bad.CheckParameters(map[string]any{}, false, seeds); err == nil || !strings.HasPrefix(err.Error(), "bad.json: ") {
		t.Errorf("a configuration that does not read: %v", err)
	}
}

// A run is checked against its baseline exactly on the virtual clock, and by
// its invariants on the real one: a figure that differs is a regression
// naming the file, a baseline that cannot be read is another error.
func TestBaselineCheck(t *testing.T) {
	rows := []raceRow{{Guard: "none", Policy: "reapply", Lost: 3, WallS: 0.4}, {Guard: "note", Policy: "reapply", WallS: 0.5}}
	stored, err := json.Marshal(Report{Experiment: "race", Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	b := &Baseline{Path: "race.json", JSON: stored}
	asRows := func(rs []raceRow) []Row {
		out := make([]Row, len(rs))
		for i, r := range rs {
			out[i] = r
		}
		return out
	}
	if note, err := b.Check(Report{Experiment: "race", Rows: rows}, false, nil, asRows(rows)); note != "" || err != nil {
		t.Errorf("an unchanged run: %q, %v", note, err)
	}
	changed := slices.Clone(rows)
	changed[1].Lost = 2
	_, err = b.Check(Report{Experiment: "race", Rows: changed}, false, nil, asRows(changed))
	var reg *Regression
	if !errors.As(err, &reg) || reg.Path != "race.json" || len(reg.Diffs) != 1 || reg.Diffs[0].Path != "rows[1].Lost" || reg.Note != "" {
		t.Errorf("a changed count: %v", err)
	}
	if _, err := (&Baseline{Path: "bad.json", JSON: []byte("[]")}).Check(Report{Experiment: "race"}, false, nil, nil); err == nil || errors.As(err, &reg) || !strings.HasPrefix(err.Error(), "bad.json: ") {
		t.Errorf("a baseline that does not read: %v", err)
	}

	// The real clock: the counts may differ, the invariants may not.
	inv := []Invariant{{Key: "guard", Value: "note", Figure: "lost", Why: "a guard never loses a line"}}
	note, err := b.Check(Report{Experiment: "race"}, true, inv, asRows(rows))
	if err != nil || !strings.HasPrefix(note, "real clock against race.json: invariants, and ") {
		t.Errorf("a real-clock run that keeps the invariants: %q, %v", note, err)
	}
	note, err = b.Check(Report{Experiment: "race"}, true, inv, asRows(changed))
	if !errors.As(err, &reg) || note != "" || len(reg.Diffs) != 1 || !strings.Contains(reg.Diffs[0].String(), "a guard never loses a line") ||
		!strings.HasPrefix(reg.Note, "real clock against race.json: ") {
		t.Errorf("a real-clock run that breaks an invariant: %q, %v", note, err)
	}
}
