package bench

import (
	"slices"
	"testing"
)

// bench's columns of faults show only when a row or a repetition had a
// fault or a call that did not end ok, with the note that says what its
// timings are; its Go benchmark lines are then named apart, so that
// benchstat never sets them beside a run's without faults.
func TestBenchFaultColumns(t *testing.T) {
	quiet := []Row{{Guard: "note", Writers: 1, MedianUS: 500, Writes: 100, Reps: 1, RepMediansUS: []float64{500}}}
	tab := Table(quiet, nil, nil)
	if slices.Contains(tab.Header, "Faults") || len(tab.Header) != 10 || len(tab.Notes) != 0 {
		t.Errorf("bench without faults: header %q, notes %q", tab.Header, tab.Notes)
	}
	faulted := []Row{{Guard: "note", Writers: 1, MedianUS: 500, Writes: 90, Reps: 1, RepMediansUS: []float64{500}, Faults: 7, Errors: 12, Info: 10}}
	tab = Table(faulted, nil, nil)
	if got := tab.Header[len(tab.Header)-3:]; !slices.Equal(got, []string{"Errors", "Info", "Faults"}) {
		t.Errorf("bench with faults: header %q", tab.Header)
	}
	if got := tab.Rows[0][len(tab.Rows[0])-3:]; !slices.Equal(got, []string{"12", "10", "7"}) {
		t.Errorf("bench with faults: cells %q", got)
	}
	if len(tab.Notes) != 1 || tab.Notes[0] != benchFaultNote {
		t.Errorf("bench with faults: notes %q", tab.Notes)
	}

	runs := []RunSummary{{Guard: "note", Writers: 1, Rep: 1, Stats: Stats{MedianUS: 500, Writes: 90}}}
	if got := RunsTable(runs).Header; slices.Contains(got, "Faults") {
		t.Errorf("repetitions without faults: header %q", got)
	}
	if got := GoBench(runs)[0].Name; got != "EditNoteTab/guard=note" {
		t.Errorf("Go benchmark without faults: %q", got)
	}
	runs = append(runs, RunSummary{Guard: "note", Writers: 1, Rep: 2, Stats: Stats{MedianUS: 600, Writes: 80}, Faults: 2, Info: 3, Errors: 4},
		RunSummary{Guard: "note", Writers: 1, Rep: 3, Faults: 9, Info: 9, Errors: 9})
	reps := RunsTable(runs)
	if got := reps.Rows[1][len(reps.Rows[1])-3:]; !slices.Equal(got, []string{"4", "3", "2"}) {
		t.Errorf("repetitions with faults: %q %q", reps.Header, reps.Rows[1])
	}
	bms := GoBench(runs)
	if len(bms) != 2 || bms[0].Name != "EditNoteTab/guard=note/under=faults" {
		t.Errorf("Go benchmarks with faults: %+v; want the two with writes, named apart", bms)
	}
}
