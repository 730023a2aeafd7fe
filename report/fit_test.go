package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/notesbench/notesbench/results"
)

// fitSections are the sections of every experiment's published setup, built
// from made-up rows: what a terminal shows after each command.
func fitSections() []Section {
	race := Build(Outcome{Experiment: "race", Rows: raceRows(0), Setup: "virtual clock, 60µs per store operation, seeds 1-5, 100 edits per editor, claude think 20ms-80ms, human think 5ms-40ms, pause think",
		Comparison: results.Compare("race", nil, raceRows(0), raceReps(0, 5))})

	createRows := []results.CreateRow{
		{Table: "a", Order: "key-first", KeyPolicy: "none", CallsSent: []int{61, 64, 70}, TabsCreated: []int{61, 64, 70}, Duplicates: []int{11, 14, 20}},
		{Table: "a", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{61, 64, 70}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
		{Table: "b", Order: "key-first", KeyPolicy: "fresh", CallsSent: []int{84, 90, 78}, TabsCreated: []int{67, 70, 64}, Duplicates: []int{17, 20, 14}},
		{Table: "b", Order: "version-first", KeyPolicy: "after-conflict", CallsSent: []int{67, 70, 64}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
	}
	create := Build(Outcome{Experiment: "create", Rows: createRows, Setup: "virtual clock, seeds 1-3, 50 tabs per run",
		Comparison: results.Compare("create", nil, createRows, nil)})

	flagged := 700
	sourcesRows := []results.SourcesRow{
		{KeyPolicy: "uuid", Saved: 5390, Duplicates: 3020, PerSession: 10.07, BrowserFlagged: &flagged},
		{KeyPolicy: "raw", Saved: 4800, Duplicates: 2430, PerSession: 8.1},
		{KeyPolicy: "normalized", Saved: 2370},
	}
	sources := Build(Outcome{Experiment: "sources", Rows: sourcesRows, Setup: "virtual clock, seed 1",
		Comparison: results.Compare("sources", nil, sourcesRows, nil)})

	refsRows := []results.RefsRow{
		{K: 2, Ref: "position", Correct: 0.512, Wrong: 0.3, NotFound: 0.188, Trials: 10000, PassedVersionCheck: 1, Writes: 8120, Refused: 1880},
		{K: 2, Ref: "label", Correct: 0.857, Wrong: 0.021, NotFound: 0.122, Trials: 10000, PassedVersionCheck: 1, Writes: 8780},
	}
	refs := Build(Outcome{Experiment: "refs", Rows: refsRows, Setup: "seed 7", Comparison: results.Compare("refs", nil, refsRows, nil)})

	outlineRows := []results.OutlineRow{
		{Approach: "outline", Writes: 1, RequestBytes: 1996, ConflictsPerDeck: 0.066, ExpectedConflicts: 0.0645},
		{Approach: "slide-add", Writes: 13, RequestBytes: 4197, ConflictsPerDeck: 0.84, ExpectedConflicts: 0.8386},
	}
	outline := Build(Outcome{Experiment: "outline", Rows: outlineRows, Setup: "seed 1, 12-slide deck",
		Comparison: results.Compare("outline", nil, outlineRows, nil)})

	validateRows := []results.ValidateRow{
		{Tool: "edit_note_tab", Payload: "operation slide_add, title, body", Minimal: "ok", Full: "ok"},
		{Tool: "edit_note_tab", Payload: "operation slides_add, slides [{title}]", Minimal: "operation: not in enum", Full: "/operation: enum (want replace_text, slide_add, slides_add_outline)"},
	}
	validate := Build(Outcome{Experiment: "validate", Rows: validateRows, Setup: "the eight published payloads",
		Comparison: results.Compare("validate", nil, validateRows, nil)})

	benchRows := []results.BenchRow{
		{Guard: "none", Writers: 1, MedianUS: 22.1, P90US: 30.2, P99US: 101.5, P999US: 402.3, MaxUS: 2510.7, Writes: 6000, Reps: 3, WritesPerS: 41234, RepMediansUS: []float64{21.9, 22.4}},
		{Guard: "note", Writers: 1, MedianUS: 22.4, P90US: 31.2, P99US: 121.5, P999US: 442.3, MaxUS: 3510.7, Writes: 6000, Reps: 3, WritesPerS: 40234, RepMediansUS: []float64{22.1, 22.9}},
	}
	runs := []results.BenchRunSummary{{Guard: "none", Writers: 1, Rep: 1}, {Guard: "note", Writers: 1, Rep: 1}}
	diffs := []results.GuardDiff{{Writers: 1, Guard: "note", Base: "none", Over: results.OverRepMedians, N: 3, NBase: 3, Delta: 0.013, P: 0.7, Alpha: 0.05}}
	benchCmp := results.Compare("bench", nil, benchRows, nil)
	bench := BenchSection(Outcome{Experiment: "bench", Rows: benchRows, Setup: "file database in WAL mode", Comparison: benchCmp}, runs, diffs, nil)

	return []Section{race, create, sources, refs, outline, validate, bench}
}

// On a terminal every table fits its width: golden files at 80 and 120
// columns, and no line wider than the terminal.
func TestRenderFitsWidth(t *testing.T) {
	var tables []Table
	for _, s := range fitSections() {
		tables = append(tables, s.Tables()...)
	}
	for _, width := range []int{80, 120} {
		var buf bytes.Buffer
		if err := RenderWidth(&buf, FormatTable, width, tables...); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(buf.String(), "\n") {
			if w := twwidth.Width(line); w > width {
				t.Errorf("width %d: line %d is %d wide: %s", width, i+1, w, line)
			}
		}
		golden(t, fmt.Sprintf("fit-%d.txt", width), buf.Bytes())
	}
}

// Each layout step, on one table narrowed step by step: headers wrapped,
// published figures folded under ours, text cells wrapped, parts, one box per
// row. Each step is taken only when the one before does not fit.
func TestLayoutSteps(t *testing.T) {
	tbl := Table{
		Title:  "t",
		Header: []string{"Key", "Lost lines in all runs", PublishedHeader("Lost lines in all runs"), "Conflicts", PublishedHeader("Conflicts"), "Note"},
		Rows: [][]string{
			{"none", "279 of 1,000 (28 %)", "300", "0 / 0", NotPublished, "a note of some length"},
			{"note", "0 of 1,000 (0 %)", "0", "200 / 115", "219 / 133", "d"},
		},
		Notes: []string{"ours: a note"},
	}
	base := boxOf(tbl)
	wrapped := base.wrapHeader()
	merged := base.mergePublished().wrapHeader()
	shrunk := merged.shrink(0, true)
	if !(base.width() > wrapped.width() && wrapped.width() > merged.width() && merged.width() > shrunk.width()) {
		t.Fatalf("widths %d, %d, %d, %d do not narrow step by step", base.width(), wrapped.width(), merged.width(), shrunk.width())
	}
	for _, tc := range []struct {
		width int
		check func([]box) bool
		want  string
	}{
		{0, func(bs []box) bool { return len(bs) == 1 && bs[0].header[1] == "Lost lines in all runs" }, "as it is"},
		{base.width(), func(bs []box) bool { return len(bs) == 1 && bs[0].header[1] == "Lost lines in all runs" }, "as it is"},
		{base.width() - 1, func(bs []box) bool {
			return len(bs) == 1 && strings.Contains(bs[0].header[1], "\n") && len(bs[0].header) == len(tbl.Header)
		}, "headers wrapped"},
		{wrapped.width() - 1, func(bs []box) bool {
			return len(bs) == 1 && len(bs[0].header) == 4 && bs[0].rows[1][2] == "200 / 115\npub 219 / 133" &&
				bs[0].rows[0][2] == "0 / 0" && bs[0].rows[0][3] == "a note of some length" && strings.HasPrefix(bs[0].notes[0], `"pub"`)
		}, "published folded under ours, a figure the write-ups lack left alone"},
		{merged.width() - 1, func(bs []box) bool {
			return len(bs) == 1 && len(bs[0].header) == 4 && strings.Contains(bs[0].rows[0][3], "\n")
		}, "text cells wrapped"},
		{shrunk.width() - 1, func(bs []box) bool {
			last := bs[len(bs)-1]
			return len(bs) == 3 && bs[0].title == "t (part 1 of 3)" && bs[0].header[0] == "Key" && last.header[0] == "Key" &&
				len(bs[0].notes) == 0 && len(last.notes) == 2
		}, "parts, each with the key column, notes under the last"},
	} {
		boxes := layoutText(tbl, tc.width)
		if !tc.check(boxes) {
			t.Errorf("width %d: want %s, got %+v", tc.width, tc.want, boxes)
		}
		for _, b := range boxes {
			if tc.width > 0 && b.width() > max(tc.width, MinWidth) {
				t.Errorf("width %d: a box is %d wide", tc.width, b.width())
			}
		}
	}

	// A row too wide for any part is one box per row: each figure a line,
	// ours beside the published figure, the title above the first.
	wide := Table{Title: "w", Header: []string{"Key", "A", PublishedHeader("A")}, Rows: [][]string{{strings.Repeat("k", 30), strings.Repeat("x", 20), "1"}}}
	bs := layoutText(wide, MinWidth)
	if len(bs) != 1 || bs[0].title != "w\nKey "+strings.Repeat("k", 30) || !slices.Equal(bs[0].header, []string{"Figure", "Ours", "Published"}) ||
		!slices.Equal(bs[0].rows[0], []string{"A", strings.Repeat("x", 20), "1"}) {
		t.Errorf("vertical layout = %+v", bs)
	}
}

// The CSV of every experiment's section is tidy: one header, a record per
// figure, plain numbers a CSV reader parses, published numbers and verdicts
// beside ours. It is a golden file too.
func TestSectionsCSV(t *testing.T) {
	var records []Record
	for _, s := range fitSections() {
		records = append(records, s.Records...)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, records); err != nil {
		t.Fatal(err)
	}
	golden(t, "sections.csv", buf.Bytes())
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], CSVHeader) {
		t.Fatalf("header %q", recs[0])
	}
	find := func(table, row, figure, seed string) []string {
		for _, r := range recs[1:] {
			if r[0] == table && r[1] == row && r[2] == figure && r[3] == seed {
				return r
			}
		}
		t.Errorf("no record %s %s %s %s", table, row, figure, seed)
		return make([]string, len(CSVHeader))
	}
	for _, want := range [][]string{
		{"race", "none", "lost", "", "280", "300", "300", "300", "consistent"},
		{"race", "note reapply", "mean_tries_claude", "", "1.4", "", "1.41", "1.48", "differs"},
		{"race", "note reapply", "retried_claude", "", "0.4", "", "0.41", "0.48", "differs"},
		{"race", "note reapply", "intended", "", "1000", "", "", "", ""},
		{"create", "b key-first fresh", "tabs_created", "2", "70", "75", "75", "75", ""},
		{"sources", "uuid", "browser_flagged", "", "700", "725", "725", "725", ""},
		{"refs", "2 label", "correct", "", "0.857", "0.856", "0.856", "0.856", "consistent"},
		{"validate", "edit_note_tab operation slides_add, slides [{title}]", "minimal", "", "operation: not in enum", "operation: not in enum", "", "", "consistent"},
		{"bench", "none 1", "median_us", "", "22.1", "", "61.9", "63.1", "ratio"},
		{"bench_differences", "1 note none rep_medians", "p", "", "0.7", "", "", "", "no significant difference"},
	} {
		if got := find(want[0], want[1], want[2], want[3]); !slices.Equal(got, want) {
			t.Errorf("record %q, want %q", got, want)
		}
	}
	// ours is a plain number wherever the figure is one.
	for _, r := range recs[1:] {
		if r[0] == "validate" {
			continue
		}
		for _, f := range []string{r[4], r[6], r[7]} {
			if _, err := strconv.ParseFloat(f, 64); f != "" && err != nil {
				t.Errorf("not a plain number: %q in %q", f, r)
			}
		}
	}
}
