package experiment_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/experiments/bench"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/outline"
	"github.com/notesbench/notesbench/experiments/refs"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/experiments/validate"
	goldenfile "github.com/notesbench/notesbench/internal/golden"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/sim"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// Every experiment with published figures can read every key field and
// figure the published file names from its rows: a renamed row field or a
// figure added to published.json without an accessor fails here, not as a
// verdict that quietly reads "no data".
func TestAccessorsCoverPublished(t *testing.T) {
	for _, d := range experiments.All() {
		exp := experiment.Published(d)
		if exp == nil {
			t.Errorf("%s: no published figures", d.Info().Name)
			continue
		}
		keys, figures := experiment.RowNames(d)
		for _, k := range exp.Key {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: no accessor for key %q", exp.Name, k)
			}
		}
		for _, f := range exp.Figures {
			if !slices.Contains(figures, f) {
				t.Errorf("%s: no accessor for figure %q", exp.Name, f)
			}
		}
	}
}

// The pipeline makes its copies of every configuration through what it
// embeds (sim.WithTarget, sim.Clocked, sim.Replica): an experiment that
// takes --target records the target in its JSON form (others may, for
// --store), one that records none is left as it was, and one with a --clock
// runs on either clock and its replications on the virtual one.
func TestConfigsTakeTheirCopies(t *testing.T) {
	probe := sim.TargetSettings{TargetName: "probe-target", MaxErrors: 7}
	for _, d := range experiments.All() {
		in := d.New()
		before, _ := experiment.CopiesOf(in, sim.TargetSettings{})
		after, replicaClock := experiment.CopiesOf(in, probe)
		records := bytes.Contains(after, []byte(`"target":"probe-target"`))
		if d.Info().Target && !records {
			t.Errorf("%s: takes --target, but its configuration does not record the target:\n%s", d.Info().Name, after)
		}
		if !records && !bytes.Equal(before, after) {
			t.Errorf("%s: runs against no target, but its configuration changed with one:\n%s\n%s", d.Info().Name, before, after)
		}
		_, clocked := in.Clock()
		hasClock := slices.ContainsFunc(in.Params(), func(p experiment.Param) bool { return p.Name == "clock" })
		if clocked != hasClock {
			t.Errorf("%s: runs on either clock: %v, has a --clock: %v", d.Info().Name, clocked, hasClock)
		}
		if clocked && replicaClock != sim.ClockVirtual {
			t.Errorf("%s: a replication runs on the %q clock, want virtual", d.Info().Name, replicaClock)
		}
	}
}

// Every experiment's configuration reads back from its JSON as it was
// written, as merge reads a shard's: at the published setup and under the
// published-fit timing, race's modes and tabs' profile included.
func TestConfigsReadBack(t *testing.T) {
	for _, d := range experiments.All() {
		for _, timing := range []string{"", "published-fit"} {
			in := d.New()
			for _, p := range in.Params() {
				if p.Name == "timing" && timing != "" {
					if err := p.Set(timing); err != nil {
						t.Fatal(err)
					}
					if err := in.Finish(func(name string) bool { return name == "timing" }); err != nil {
						t.Fatal(err)
					}
				}
			}
			recorded, err := json.Marshal(in.Config())
			if err != nil {
				t.Fatal(err)
			}
			back, err := experiment.ReadBack(d, recorded)
			if err != nil || string(back) != string(recorded) {
				t.Errorf("%s %s: read back %s, %v; recorded %s", d.Info().Name, timing, back, err, recorded)
			}
		}
	}
}

// fitSections are the sections of every experiment's published setup, built
// from made-up rows: what a terminal shows after each command.
func fitSections() []report.Section {
	raceSec := raceSection(raceRows(0), "virtual clock, 60µs per store operation, seeds 1-5, 100 edits per editor, claude think 20ms-80ms, human think 5ms-40ms, pause think", nil, raceReps(0, 5), nil, "")

	createRows := []create.Row{
		{Table: "a", Order: "key-first", KeyPolicy: "none", CallsSent: []int{61, 64, 70}, TabsCreated: []int{61, 64, 70}, Duplicates: []int{11, 14, 20}},
		{Table: "a", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{61, 64, 70}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
		{Table: "b", Order: "key-first", KeyPolicy: "fresh", CallsSent: []int{84, 90, 78}, TabsCreated: []int{67, 70, 64}, Duplicates: []int{17, 20, 14}},
		{Table: "b", Order: "version-first", KeyPolicy: "after-conflict", CallsSent: []int{67, 70, 64}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
	}
	createSec := experiment.SectionOf[create.Config](create.Experiment, createRows, "virtual clock, seeds 1-3, 50 tabs per run", nil, nil, nil, "")

	flagged := 700
	sourcesRows := []sources.Row{
		{KeyPolicy: "uuid", Saved: 5390, Duplicates: 3020, PerSession: 10.07, BrowserFlagged: &flagged},
		{KeyPolicy: "raw", Saved: 4800, Duplicates: 2430, PerSession: 8.1},
		{KeyPolicy: "normalized", Saved: 2370},
	}
	sourcesSec := experiment.SectionOf[sources.Config](sources.Experiment, sourcesRows, "virtual clock, seed 1", nil, nil, nil, "")

	refsRows := []refs.Row{
		{K: 2, Ref: "position", Correct: 0.512, Wrong: 0.3, NotFound: 0.188, Trials: 10000, PassedVersionCheck: 1, Writes: 8120, Refused: 1880},
		{K: 2, Ref: "label", Correct: 0.857, Wrong: 0.021, NotFound: 0.122, Trials: 10000, PassedVersionCheck: 1, Writes: 8780},
	}
	refsSec := experiment.SectionOf[refs.Config](refs.Experiment, refsRows, "seed 7", nil, nil, nil, "")

	outlineRows := []outline.Row{
		{Approach: "outline", Writes: 1, RequestBytes: 1996, ConflictsPerDeck: 0.066, ExpectedConflicts: 0.0645},
		{Approach: "slide-add", Writes: 13, RequestBytes: 4197, ConflictsPerDeck: 0.84, ExpectedConflicts: 0.8386},
	}
	outlineSec := experiment.SectionOf[outline.Config](outline.Experiment, outlineRows, "seed 1, 12-slide deck", nil, nil, nil, "")

	validateRows := []validate.Row{
		{Tool: "edit_note_tab", Payload: "operation slide_add, title, body", Minimal: "ok", Full: "ok"},
		{Tool: "edit_note_tab", Payload: "operation slides_add, slides [{title}]", Minimal: "operation: not in enum", Full: "/operation: enum (want replace_text, slide_add, slides_add_outline)"},
	}
	validateSec := experiment.SectionOf[validate.Config](validate.Experiment, validateRows, "the eight published payloads", nil, nil, nil, "")

	benchRows := []bench.Row{
		{Guard: "none", Writers: 1, MedianUS: 22.1, P90US: 30.2, P99US: 101.5, P999US: 402.3, MaxUS: 2510.7, Writes: 6000, Reps: 3, WritesPerS: 41234, RepMediansUS: []float64{21.9, 22.4}},
		{Guard: "note", Writers: 1, MedianUS: 22.4, P90US: 31.2, P99US: 121.5, P999US: 442.3, MaxUS: 3510.7, Writes: 6000, Reps: 3, WritesPerS: 40234, RepMediansUS: []float64{22.1, 22.9}},
	}
	runs := []bench.RunSummary{{Guard: "none", Writers: 1, Rep: 1}, {Guard: "note", Writers: 1, Rep: 1}}
	diffs := []bench.GuardDiff{{Writers: 1, Guard: "note", Base: "none", Over: bench.OverRepMedians, N: 3, NBase: 3, Delta: 0.013, P: 0.7, Alpha: 0.05}}
	parts := experiment.PartsOf[bench.Config](bench.Experiment, benchRows, "file database in WAL mode")
	bench.AddParts(&parts, benchRows, runs, diffs, nil)
	benchSection := report.Build(parts)

	return []report.Section{raceSec, createSec, sourcesSec, refsSec, outlineSec, validateSec, benchSection}
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
		goldenfile.Check(t, fmt.Sprintf("fit-%d.txt", width), buf.Bytes())
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
	goldenfile.Check(t, "sections.csv", buf.Bytes())
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

// The sections of the published setups: published columns beside ours, the
// notes that say where they come from, and the verdicts, built from made-up
// rows so that the goldens pin the rendering and no experiment's counts.
func TestSectionGolden(t *testing.T) {
	raceSec := raceSection(raceRows(0), "virtual clock, seeds 1-5", nil, raceReps(0, 5), nil, "")

	createRows := []create.Row{
		{Table: "b", Order: "key-first", KeyPolicy: "fresh", CallsSent: []int{84, 90, 78}, TabsCreated: []int{67, 70, 64}, Duplicates: []int{17, 20, 14}},
		{Table: "b", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{67, 70, 64}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
	}
	createB := experiment.SectionOf[create.Config](create.Experiment, createRows, "table b only", nil, nil, nil, "")

	refsRows := []refs.Row{{K: 2, Ref: "label", Correct: 0.857, Wrong: 0.021, NotFound: 0.122, Trials: 10000, PassedVersionCheck: 1, Writes: 8780}}
	refsSec := experiment.SectionOf[refs.Config](refs.Experiment, refsRows, "seed 7", nil, nil, nil, "")

	differs := raceSection(raceRows(0)[:1], "virtual clock, seeds 1-3", []string{"seeds 1-3 (published 1-5)"}, nil, []string{"a fact of the run"}, " (real clock)")

	var buf bytes.Buffer
	for _, s := range []report.Section{raceSec, createB, refsSec, differs} {
		if err := report.Render(&buf, report.FormatMarkdown, s.Tables()...); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("\n")
	}
	goldenfile.Check(t, "sections.md", buf.Bytes())

	if notes := raceSec.Tables()[0].Notes; len(notes) < 2 || !strings.Contains(notes[1], "osfoundry-version-check.en.txt") {
		t.Errorf("race's source note is missing: %q", notes)
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
