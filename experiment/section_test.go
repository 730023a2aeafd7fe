package experiment

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/notesbench/notesbench/internal/golden"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

func TestMain(m *testing.M) {
	// Em and en dashes are ambiguous-width runes: pin their width to one column
	// so that the golden boxes do not depend on the locale of the machine.
	os.Setenv("RUNEWIDTH_EASTASIAN", "0")
	os.Exit(m.Run())
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) { goldenfile.Check(t, name, got) }

// sectionOf builds the section d's command prints for rows, made up: setup
// says how they ran, diffs how the parameters depart from the published
// setup, reps are the replications behind the verdicts.
func sectionOf[C sim.Configuration[C, Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string, diffs []string, reps *results.Replications[Row], facts []string, suffix string) report.Section {
	dd := d.(*descriptor[C, Row, Run])
	cmp := results.Compare(dd.pub, dd.def.Rule, diffs, rows, reps)
	return report.Build(dd.parts(rows, setup, facts, cmp, suffix))
}

// raceSection is sectionOf for race.
func raceSection(rows []results.RaceRow, setup string, diffs []string, reps *results.Replications[results.RaceRow], facts []string, suffix string) report.Section {
	return sectionOf[sim.Race](Race, rows, setup, diffs, reps, facts, suffix)
}

// raceRows is a race table of made-up counts; shift moves every count, so
// that replications of them spread.
func raceRows(shift int) []results.RaceRow {
	return []results.RaceRow{
		{Guard: "none", Lost: 280 + shift, LostClaude: 110 + shift, LostHuman: 170, Intended: 1000, MaxTries: 1, MeanTriesClaude: 1, MeanTriesHuman: 1, WallS: 9.8, Runs: 5},
		{Guard: "note", Policy: "reapply", Intended: 1000, ConflictsClaude: 200 + shift, ConflictsHuman: 115 + shift, MaxTries: 2,
			MeanTriesClaude: 1.40, MeanTriesHuman: 1.23, RetriedClaude: 0.4, WallS: 9.9, Runs: 5},
		{Guard: "note", Policy: "refresh", Lost: 276 + shift, LostClaude: 113, LostHuman: 163 + shift, Intended: 1000,
			ConflictsClaude: 200, ConflictsHuman: 115, MaxTries: 2, MeanTriesClaude: 1.40, MeanTriesHuman: 1.23, WallS: 9.9, Runs: 5},
	}
}

// raceReps returns ten made-up replications of raceRows, replication i shifted
// by shift+i·step, each with two single runs (the second shifted by one more).
func raceReps(shift, step int) *results.Replications[results.RaceRow] {
	var reps results.Replications[results.RaceRow]
	for i := range 10 {
		s := shift + i*step
		reps.Reps = append(reps.Reps, raceRows(s))
		reps.Singles = append(reps.Singles, raceRows(s), raceRows(s+1))
	}
	return &reps
}

// The sections of the published setups: published columns beside ours, the
// notes that say where they come from, and the verdicts, built from made-up
// rows so that the goldens pin the rendering and no experiment's counts.
func TestSectionGolden(t *testing.T) {
	race := raceSection(raceRows(0), "virtual clock, seeds 1-5", nil, raceReps(0, 5), nil, "")

	createRows := []results.CreateRow{
		{Table: "b", Order: "key-first", KeyPolicy: "fresh", CallsSent: []int{84, 90, 78}, TabsCreated: []int{67, 70, 64}, Duplicates: []int{17, 20, 14}},
		{Table: "b", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{67, 70, 64}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
	}
	createB := sectionOf[sim.Create](Create, createRows, "table b only", nil, nil, nil, "")

	refsRows := []results.RefsRow{{K: 2, Ref: "label", Correct: 0.857, Wrong: 0.021, NotFound: 0.122, Trials: 10000, PassedVersionCheck: 1, Writes: 8780}}
	refs := sectionOf[sim.Refs](Refs, refsRows, "seed 7", nil, nil, nil, "")

	differs := raceSection(raceRows(0)[:1], "virtual clock, seeds 1-3", []string{"seeds 1-3 (published 1-5)"}, nil, []string{"a fact of the run"}, " (real clock)")

	var buf bytes.Buffer
	for _, s := range []report.Section{race, createB, refs, differs} {
		if err := report.Render(&buf, report.FormatMarkdown, s.Tables()...); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("\n")
	}
	golden(t, "sections.md", buf.Bytes())

	if strings.Contains(buf.String(), "osfoundry-version-check.en.txt") && !strings.Contains(race.Tables()[0].Notes[1], "en.txt") {
		t.Error("race's source note is missing")
	}
	for _, n := range createB.Main[0].Notes {
		if strings.Contains(n, "version-check.en") {
			t.Errorf("table B alone carries table A's source: %s", n)
		}
	}
	if len(differs.Verdicts) != 0 || len(differs.Main[0].Header) != 8 {
		t.Errorf("a run of other parameters shows published columns or verdicts: %+v", differs)
	}
}

// Counts of one take the singular: "1 replication", "1 of 1 published
// figure", not "1 replications".
func TestSectionPlurals(t *testing.T) {
	reps := results.Replications[results.RaceRow]{Reps: [][]results.RaceRow{raceRows(0)}, Singles: [][]results.RaceRow{raceRows(0)}}
	race := raceSection(raceRows(0), "s", nil, &reps, nil, "")
	var buf bytes.Buffer
	if err := report.Render(&buf, report.FormatMarkdown, race.Tables()...); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"against 1 replication of the published setup", "verdicts rest on 1 replication:"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// fitSections are the sections of every experiment's published setup, built
// from made-up rows: what a terminal shows after each command.
func fitSections() []report.Section {
	race := raceSection(raceRows(0), "virtual clock, 60µs per store operation, seeds 1-5, 100 edits per editor, claude think 20ms-80ms, human think 5ms-40ms, pause think", nil, raceReps(0, 5), nil, "")

	createRows := []results.CreateRow{
		{Table: "a", Order: "key-first", KeyPolicy: "none", CallsSent: []int{61, 64, 70}, TabsCreated: []int{61, 64, 70}, Duplicates: []int{11, 14, 20}},
		{Table: "a", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{61, 64, 70}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
		{Table: "b", Order: "key-first", KeyPolicy: "fresh", CallsSent: []int{84, 90, 78}, TabsCreated: []int{67, 70, 64}, Duplicates: []int{17, 20, 14}},
		{Table: "b", Order: "version-first", KeyPolicy: "after-conflict", CallsSent: []int{67, 70, 64}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
	}
	create := sectionOf[sim.Create](Create, createRows, "virtual clock, seeds 1-3, 50 tabs per run", nil, nil, nil, "")

	flagged := 700
	sourcesRows := []results.SourcesRow{
		{KeyPolicy: "uuid", Saved: 5390, Duplicates: 3020, PerSession: 10.07, BrowserFlagged: &flagged},
		{KeyPolicy: "raw", Saved: 4800, Duplicates: 2430, PerSession: 8.1},
		{KeyPolicy: "normalized", Saved: 2370},
	}
	sources := sectionOf[sim.Sources](Sources, sourcesRows, "virtual clock, seed 1", nil, nil, nil, "")

	refsRows := []results.RefsRow{
		{K: 2, Ref: "position", Correct: 0.512, Wrong: 0.3, NotFound: 0.188, Trials: 10000, PassedVersionCheck: 1, Writes: 8120, Refused: 1880},
		{K: 2, Ref: "label", Correct: 0.857, Wrong: 0.021, NotFound: 0.122, Trials: 10000, PassedVersionCheck: 1, Writes: 8780},
	}
	refs := sectionOf[sim.Refs](Refs, refsRows, "seed 7", nil, nil, nil, "")

	outlineRows := []results.OutlineRow{
		{Approach: "outline", Writes: 1, RequestBytes: 1996, ConflictsPerDeck: 0.066, ExpectedConflicts: 0.0645},
		{Approach: "slide-add", Writes: 13, RequestBytes: 4197, ConflictsPerDeck: 0.84, ExpectedConflicts: 0.8386},
	}
	outline := sectionOf[sim.Outline](Outline, outlineRows, "seed 1, 12-slide deck", nil, nil, nil, "")

	validateRows := []results.ValidateRow{
		{Tool: "edit_note_tab", Payload: "operation slide_add, title, body", Minimal: "ok", Full: "ok"},
		{Tool: "edit_note_tab", Payload: "operation slides_add, slides [{title}]", Minimal: "operation: not in enum", Full: "/operation: enum (want replace_text, slide_add, slides_add_outline)"},
	}
	validate := sectionOf[sim.Validation](Validate, validateRows, "the eight published payloads", nil, nil, nil, "")

	benchRows := []results.BenchRow{
		{Guard: "none", Writers: 1, MedianUS: 22.1, P90US: 30.2, P99US: 101.5, P999US: 402.3, MaxUS: 2510.7, Writes: 6000, Reps: 3, WritesPerS: 41234, RepMediansUS: []float64{21.9, 22.4}},
		{Guard: "note", Writers: 1, MedianUS: 22.4, P90US: 31.2, P99US: 121.5, P999US: 442.3, MaxUS: 3510.7, Writes: 6000, Reps: 3, WritesPerS: 40234, RepMediansUS: []float64{22.1, 22.9}},
	}
	runs := []results.BenchRunSummary{{Guard: "none", Writers: 1, Rep: 1}, {Guard: "note", Writers: 1, Rep: 1}}
	diffs := []results.GuardDiff{{Writers: 1, Guard: "note", Base: "none", Over: results.OverRepMedians, N: 3, NBase: 3, Delta: 0.013, P: 0.7, Alpha: 0.05}}
	bd := Bench.(*descriptor[sim.Bench, results.BenchRow, results.BenchRun])
	parts := bd.parts(benchRows, "file database in WAL mode", nil, results.Compare(bd.pub, bd.def.Rule, nil, benchRows, nil), "")
	benchParts(&parts, benchRows, runs, diffs, nil)
	bench := report.Build(parts)

	return []report.Section{race, create, sources, refs, outline, validate, bench}
}

// On a terminal every table fits its width: golden files at 80 and 120
// columns, and no line wider than the terminal.
func TestRenderFitsWidth(t *testing.T) {
	var tables []report.Table
	for _, s := range fitSections() {
		tables = append(tables, s.Tables()...)
	}
	for _, width := range []int{80, 120} {
		var buf bytes.Buffer
		if err := report.RenderWidth(&buf, report.FormatTable, width, tables...); err != nil {
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

// The CSV of every experiment's section is tidy: one header, a record per
// figure, plain numbers a CSV reader parses, published numbers and verdicts
// beside ours. It is a golden file too.
func TestSectionsCSV(t *testing.T) {
	var records []report.Record
	for _, s := range fitSections() {
		records = append(records, s.Records...)
	}
	var buf bytes.Buffer
	if err := report.WriteCSV(&buf, records); err != nil {
		t.Fatal(err)
	}
	golden(t, "sections.csv", buf.Bytes())
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], report.CSVHeader) {
		t.Fatalf("header %q", recs[0])
	}
	find := func(table, row, figure, seed string) []string {
		for _, r := range recs[1:] {
			if r[0] == table && r[1] == row && r[2] == figure && r[3] == seed {
				return r
			}
		}
		t.Errorf("no record %s %s %s %s", table, row, figure, seed)
		return make([]string, len(report.CSVHeader))
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

// The verdicts of two models side by side and the ablation of four, built
// from made-up rows so that the golden pins the rendering and no
// experiment's counts: each model shifts every count by its own amount. With
// 20 replications a figure that varies evenly is judged as near normal, one
// that never varies as a constant, and the published ranges against 40 single
// runs by order statistics.
func TestAblationGolden(t *testing.T) {
	verdictsOf := func(shift int) []results.Verdict {
		even, odd := raceReps(shift, 2), raceReps(shift+1, 2) // every shift from shift to shift+19
		reps := results.Replications[results.RaceRow]{Reps: append(even.Reps, odd.Reps...), Singles: append(even.Singles, odd.Singles...)}
		return results.Compare(inspect(Race).published(), results.Rule[results.RaceRow]{}, nil, nil, &reps).Verdicts
	}
	model := func(name string) results.AblationModel { return results.AblationModel{Name: name, Replications: 20} }
	pair, err := results.NewAblation("race", []results.AblationModel{model("default"), model("fit")},
		[][]results.Verdict{verdictsOf(0), verdictsOf(18)})
	if err != nil {
		t.Fatal(err)
	}
	abl, err := results.NewAblation("race", []results.AblationModel{model("default"), model("a alone"), model("b alone"), model("both")},
		[][]results.Verdict{verdictsOf(0), verdictsOf(8), verdictsOf(10), verdictsOf(18)})
	if err != nil {
		t.Fatal(err)
	}
	tables := []report.Table{
		report.TimingVerdictTable("Verdicts under both models", pair, results.DefaultMass, "fit: a made-up model"),
		report.AblationTable("Ablation", abl, results.DefaultMass, "both: a made-up model"),
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, report.FormatMarkdown, tables...); err != nil {
		t.Fatal(err)
	}
	golden(t, "ablation.md", buf.Bytes())

	// The ablation leaves out what no model moves, and its last row counts
	// every figure of each model.
	last := tables[1].Rows[len(tables[1].Rows)-1]
	if last[1] != "figures consistent" || last[3] != report.Int(int64(abl.Models[0].Consistent))+" of "+report.Int(int64(abl.Models[0].Judged)) {
		t.Errorf("count row %q", last)
	}
	for _, r := range tables[1].Rows {
		if r[1] == "conflicts_human" && r[0] == "none" {
			t.Errorf("a figure no model moves is shown: %q", r)
		}
	}
	if !strings.Contains(buf.String(), " ✗") {
		t.Error("no cell is marked as differing")
	}
}
