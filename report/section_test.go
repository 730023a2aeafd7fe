package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/results"
)

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
	race := Build(Outcome{Experiment: "race", Rows: raceRows(0), Setup: "virtual clock, seeds 1-5",
		Comparison: results.Compare("race", nil, raceRows(0), raceReps(0, 5))})

	createRows := []results.CreateRow{
		{Table: "b", Order: "key-first", KeyPolicy: "fresh", CallsSent: []int{84, 90, 78}, TabsCreated: []int{67, 70, 64}, Duplicates: []int{17, 20, 14}},
		{Table: "b", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{67, 70, 64}, TabsCreated: []int{50, 50, 50}, Duplicates: []int{0, 0, 0}},
	}
	createB := Build(Outcome{Experiment: "create", Rows: createRows, Setup: "table b only",
		Comparison: results.Compare("create", nil, createRows, nil)})

	refsRows := []results.RefsRow{{K: 2, Ref: "label", Correct: 0.857, Wrong: 0.021, NotFound: 0.122, Trials: 10000, PassedVersionCheck: 1, Writes: 8780}}
	refs := Build(Outcome{Experiment: "refs", Rows: refsRows, Setup: "seed 7", Comparison: results.Compare("refs", nil, refsRows, nil)})

	differs := Build(Outcome{Experiment: "race", Rows: raceRows(0)[:1], Setup: "virtual clock, seeds 1-3", Facts: []string{"a fact of the run"},
		Comparison: results.Compare("race", []string{"seeds 1-3 (published 1-5)"}, raceRows(0)[:1], nil), TitleSuffix: " (real clock)"})

	var buf bytes.Buffer
	for _, s := range []Section{race, createB, refs, differs} {
		if err := Render(&buf, FormatMarkdown, s.Tables()...); err != nil {
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
	race := Build(Outcome{Experiment: "race", Rows: raceRows(0), Setup: "s", Comparison: results.Compare("race", nil, raceRows(0), &reps)})
	var buf bytes.Buffer
	if err := Render(&buf, FormatMarkdown, race.Tables()...); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"against 1 replication of the published setup", "verdicts rest on 1 replication:"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	one := []results.Verdict{{Outcome: results.Consistent, Method: results.MethodNormal, Coverage: results.DefaultMass}}
	if got := SummaryNote(one, results.DefaultMass); got != "verdict: 1 of 1 published figure consistent with ours (each against the interval one new run of ours falls in, 99.0 % asked)" {
		t.Errorf("SummaryNote = %q", got)
	}
	if got := (results.Reproduction{Consistent: 0, Judged: 1}).Summary(); !strings.HasPrefix(got, "0 of 1 published figure consistent") {
		t.Errorf("Summary = %q", got)
	}
	if got := Count(1, "violation") + ", " + Count(5400, "figure"); got != "1 violation, 5,400 figures" {
		t.Errorf("Count = %q", got)
	}
}
