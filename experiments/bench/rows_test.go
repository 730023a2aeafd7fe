package bench

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Quantiles of 1..10 by hand (type 7, h = 9p): p90 at h = 8.1 is 9.1, p99 at
// 8.91 is 9.91, p99.9 at 8.991 is 9.991; 10 writes in 2 s is 5 writes/s.
func TestSummarize(t *testing.T) {
	s := StatsOf([]float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, 2)
	want := Stats{MedianUS: 5.5, P90US: 9.1, P99US: 9.91, P999US: 9.991, MaxUS: 10, Writes: 10, WritesPerS: 5}
	if s != want {
		t.Fatalf("got %+v, want %+v", s, want)
	}
	if s := StatsOf([]float64{3}, 0); s.WritesPerS != 0 || s.MedianUS != 3 || s.P999US != 3 {
		t.Fatalf("one sample, no wall time: %+v", s)
	}
}

func benchRuns() []Run {
	return []Run{
		{Guard: "none", Writers: 1, Rep: 1, SamplesUS: []float64{10, 12}, WallS: 1},
		{Guard: "note", Writers: 1, Rep: 1, SamplesUS: []float64{1, 3}, WallS: 1},
		{Guard: "note", Writers: 1, Rep: 2, SamplesUS: []float64{4, 6}, WallS: 1},
		{Guard: "none", Writers: 1, Rep: 2, SamplesUS: []float64{13, 15}, WallS: 2},
		{Guard: "none", Writers: 1, Rep: 3, SamplesUS: []float64{16, 18}, WallS: 1},
		{Guard: "note", Writers: 1, Rep: 3, SamplesUS: []float64{7, 9}, WallS: 1},
	}
}

// Rows pool every write of a guard; the per-repetition medians stay apart.
func TestSummarizeBench(t *testing.T) {
	rows := Summarize(benchRuns())
	if len(rows) != 2 || rows[0].Guard != "none" || rows[1].Guard != "note" {
		t.Fatalf("rows %+v", rows)
	}
	none := rows[0]
	// Pooled none: 10 12 13 15 16 18 → median 14; 6 writes over 4 s.
	if none.MedianUS != 14 || none.MaxUS != 18 || none.Writes != 6 || none.Reps != 3 || none.WritesPerS != 1.5 {
		t.Fatalf("none %+v", none)
	}
	if !slices.Equal(none.RepMediansUS, []float64{11, 14, 17}) {
		t.Fatalf("none rep medians %v", none.RepMediansUS)
	}
	// p99 of 1 3 4 6 7 9: h = 4.95 → 7 + 0.95·2 = 8.9.
	if note := rows[1]; !near(note.P99US, 8.9) || !slices.Equal(note.RepMediansUS, []float64{2, 5, 8}) {
		t.Fatalf("note %+v", note)
	}
}

// note's medians (2, 5, 8) all lie below none's (11, 14, 17): U = 0, and the exact
// two-sided p of 3 against 3 is 2/C(6,3) = 0.1, not below 0.05. Pooled, 6 against
// 6 with every note write below every none write: p = 2/C(12,6) = 2/924.
func TestCompareGuards(t *testing.T) {
	diffs := CompareGuards(benchRuns(), 0.05)
	if len(diffs) != 2 {
		t.Fatalf("%d diffs, want 2: %+v", len(diffs), diffs)
	}
	reps, pooled := diffs[0], diffs[1]
	if reps.Guard != "note" || reps.Base != "none" || reps.Over != OverRepMedians || reps.N != 3 || reps.NBase != 3 {
		t.Fatalf("reps %+v", reps)
	}
	if reps.U != 0 || !near(reps.P, 0.1) || reps.Significant || !near(reps.MinP, 0.1) {
		t.Fatalf("reps test %+v", reps)
	}
	if !near(reps.Delta, results.Round(5.0/14-1, 6)) { // median 5 against median 14
		t.Fatalf("reps delta %v", reps.Delta)
	}
	if pooled.Over != OverPooled || pooled.N != 6 || !near(pooled.P, results.Round(2.0/924, 6)) || !pooled.Significant {
		t.Fatalf("pooled %+v", pooled)
	}
	// Pooled medians: note 5 (1 3 4 6 7 9 → (4+6)/2), none 14.
	if !near(pooled.Delta, results.Round(5.0/14-1, 6)) {
		t.Fatalf("pooled delta %v", pooled.Delta)
	}
}

func TestMinMannWhitneyP(t *testing.T) {
	for _, tc := range []struct {
		n1, n2 int
		want   float64
	}{{3, 3, 0.1}, {4, 4, 2.0 / 70}, {1, 1, 1}, {2, 5, 2.0 / 21}, {51, 3, 0}} {
		if got := minMannWhitneyP(tc.n1, tc.n2); !near(got, tc.want) {
			t.Errorf("minMannWhitneyP(%d, %d) = %v, want %v", tc.n1, tc.n2, got, tc.want)
		}
	}
	if !math.IsNaN(minMannWhitneyP(0, 3)) {
		t.Error("no samples: want NaN")
	}
	// It is what MannWhitney gives for fully separated samples.
	if _, p := results.MannWhitney([]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}); !near(p, minMannWhitneyP(4, 4)) {
		t.Errorf("MannWhitney p %v", p)
	}
}

func TestBenchWarnings(t *testing.T) {
	runs := []Run{
		{Guard: "note", Writers: 1, Rep: 1, SamplesUS: make([]float64, 50)},
		{Guard: "note", Writers: 1, Rep: 2, SamplesUS: make([]float64, 500)},
	}
	got := Warnings(runs, CompareGuards(benchRuns(), 0.05), 0.05)
	want := []string{
		"per-repetition p99 rests on 50 samples (fewer than 100) for guard note, 1 writer(s): read the pooled figure",
		"p99.9 rests on 550 samples (fewer than 1000) for guard note, 1 writer(s): less than one sample lies beyond it",
		"with 3 and 3 repetitions the test over per-repetition medians cannot reach p < 0.05 (its smallest p is 0.100): it can only say the guards are not told apart; use --reps 4 or more",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	enough := []Run{{Guard: "note", Writers: 1, Rep: 1, SamplesUS: make([]float64, 2000)}}
	if got := Warnings(enough, nil, 0.05); len(got) != 0 {
		t.Fatalf("2,000 samples: %v", got)
	}
}

// Published medians are ranges over repetitions: ours are judged by the
// median of our per-repetition medians over the published midpoint, as a
// ratio only. note's published median is 57.0–58.8 (midpoint 57.9), the p99
// 420–1330 (midpoint 875).
func TestBenchVerdicts(t *testing.T) {
	exp := simtest.MustLookup(t, "bench")
	rows := []Row{
		{Guard: "note", Writers: 1, RepMediansUS: []float64{50, 57.9 * 2, 60}, RepP99sUS: []float64{875, 875, 875}},
		{Guard: "note", Writers: 2, RepMediansUS: []float64{1}, RepP99sUS: []float64{1}},
	}
	v := Verdicts(exp, rows)
	if len(v) != 2 {
		t.Fatalf("%d verdicts: %+v", len(v), v)
	}
	if v[0].Figure != "median_us" || v[0].Row != "note" || v[0].Outcome != results.RatioOnly || !near(v[0].Ratio, 60/57.9) {
		t.Fatalf("median verdict %+v", v[0])
	}
	if v[1].Figure != "p99_us" || !near(v[1].Ratio, 1) || v[1].N != 3 {
		t.Fatalf("p99 verdict %+v", v[1])
	}
}

// Retries per write are the retries of a row's runs over their timed writes,
// 0 when the store counted none, and absent (nil, no JSON key) when a run's
// store did not count them.
func TestBenchRetriesPerWrite(t *testing.T) {
	runs := []Run{
		{Guard: "note", Writers: 8, Rep: 1, SamplesUS: make([]float64, 400), WallS: 1, Retries: 90, RetriesCounted: true},
		{Guard: "note", Writers: 8, Rep: 2, SamplesUS: make([]float64, 400), WallS: 1, Retries: 10, RetriesCounted: true},
		{Guard: "note", Writers: 1, Rep: 1, SamplesUS: make([]float64, 50), WallS: 1, RetriesCounted: true},
		{Guard: "none", Writers: 1, Rep: 1, SamplesUS: make([]float64, 50), WallS: 1, Retries: 3, RetriesCounted: true},
		{Guard: "none", Writers: 1, Rep: 2, SamplesUS: make([]float64, 50), WallS: 1},
	}
	rows := Summarize(runs)
	if len(rows) != 3 {
		t.Fatalf("rows %+v", rows)
	}
	if r := rows[0].RetriesPerWrite; r == nil || *r != 0.125 {
		t.Fatalf("8 writers: %v, want 100 retries over 800 writes", r)
	}
	if r := rows[1].RetriesPerWrite; r == nil || *r != 0 {
		t.Fatalf("1 writer: %v, want 0", r)
	}
	if r := rows[2].RetriesPerWrite; r != nil {
		t.Fatalf("a run whose store counted no retries: %v, want nil", *r)
	}
	for i, want := range []string{`"retries_per_write":0.125}`, `"retries_per_write":0}`, ""} {
		b, err := json.Marshal(rows[i])
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "retries_per_write"); got != (want != "") || !strings.Contains(string(b), want) {
			t.Errorf("row %d: %s, want %q", i, b, want)
		}
	}
}

func TestRowFigureOf(t *testing.T) {
	if v, ok := (Row{MedianUS: 22, P99US: 140}).FigureOf("p99_us"); !ok || !slices.Equal(v.Nums, []float64{140}) {
		t.Errorf("p99_us: %v %v", v, ok)
	}
}
