package report

import (
	"slices"
	"testing"

	"github.com/notesbench/notesbench/results"
)

// The columns of faults show only when a row has a figure in them: a run
// without --nemesis prints the table it always did.
func TestFaultColumns(t *testing.T) {
	quiet := []results.RaceRow{{Guard: "note", Policy: "reapply", Intended: 10}}
	if got := RaceTable(quiet, nil).Header; slices.Contains(got, "Faults") || len(got) != 8 {
		t.Errorf("race without faults: header %q", got)
	}
	faulted := []results.RaceRow{{Guard: "note", Policy: "reapply", Intended: 10, Faults: 3, InfoClaude: 2, InfoHuman: 1, UnreadableHuman: 1}}
	tab := RaceTable(faulted, nil)
	want := []string{"Faults", "Info claude / human", "Unreadable claude / human"}
	if got := tab.Header[len(tab.Header)-3:]; !slices.Equal(got, want) {
		t.Errorf("race with faults: header ends %q, want %q", got, want)
	}
	if got := tab.Rows[0][len(tab.Rows[0])-3:]; !slices.Equal(got, []string{"3", "2 / 1", "0 / 1"}) {
		t.Errorf("race with faults: cells %q", got)
	}
}

// bench's columns of faults show only when a row or a repetition had a
// fault or a call that did not end ok, with the note that says what its
// timings are; its Go benchmark lines are then named apart, so that
// benchstat never sets them beside a run's without faults.
func TestBenchFaultColumns(t *testing.T) {
	quiet := []results.BenchRow{{Guard: "note", Writers: 1, MedianUS: 500, Writes: 100, Reps: 1, RepMediansUS: []float64{500}}}
	tab := BenchTable(quiet, nil, nil)
	if slices.Contains(tab.Header, "Faults") || len(tab.Header) != 10 || len(tab.Notes) != 0 {
		t.Errorf("bench without faults: header %q, notes %q", tab.Header, tab.Notes)
	}
	faulted := []results.BenchRow{{Guard: "note", Writers: 1, MedianUS: 500, Writes: 90, Reps: 1, RepMediansUS: []float64{500}, Faults: 7, Errors: 12, Info: 10}}
	tab = BenchTable(faulted, nil, nil)
	if got := tab.Header[len(tab.Header)-3:]; !slices.Equal(got, []string{"Errors", "Info", "Faults"}) {
		t.Errorf("bench with faults: header %q", tab.Header)
	}
	if got := tab.Rows[0][len(tab.Rows[0])-3:]; !slices.Equal(got, []string{"12", "10", "7"}) {
		t.Errorf("bench with faults: cells %q", got)
	}
	if len(tab.Notes) != 1 || tab.Notes[0] != benchFaultNote {
		t.Errorf("bench with faults: notes %q", tab.Notes)
	}

	runs := []results.BenchRunSummary{{Guard: "note", Writers: 1, Rep: 1, BenchStats: results.BenchStats{MedianUS: 500, Writes: 90}}}
	if got := BenchRunsTable(runs).Header; slices.Contains(got, "Faults") {
		t.Errorf("repetitions without faults: header %q", got)
	}
	if got := BenchGoBench(runs)[0].Name; got != "EditNoteTab/guard=note" {
		t.Errorf("Go benchmark without faults: %q", got)
	}
	runs = append(runs, results.BenchRunSummary{Guard: "note", Writers: 1, Rep: 2, BenchStats: results.BenchStats{MedianUS: 600, Writes: 80}, Faults: 2, Info: 3, Errors: 4},
		results.BenchRunSummary{Guard: "note", Writers: 1, Rep: 3, Faults: 9, Info: 9, Errors: 9})
	reps := BenchRunsTable(runs)
	if got := reps.Rows[1][len(reps.Rows[1])-3:]; !slices.Equal(got, []string{"4", "3", "2"}) {
		t.Errorf("repetitions with faults: %q %q", reps.Header, reps.Rows[1])
	}
	bms := BenchGoBench(runs)
	if len(bms) != 2 || bms[0].Name != "EditNoteTab/guard=note/under=faults" {
		t.Errorf("Go benchmarks with faults: %+v; want the two with writes, named apart", bms)
	}
}
