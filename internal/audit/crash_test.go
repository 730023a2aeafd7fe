package audit

import (
	"slices"
	"testing"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// The kill -9 test's record fills the crash column: the runs whose state
// did not read back whole, the lost, doubled and empty counts summed over
// the runs, its record and command as the part, a warning per check that
// could not judge.
func TestCrashOutcome(t *testing.T) {
	rec := results.CrashRecord{Experiment: "crash", Rows: []results.CrashRun{
		{Run: "crash-normal", Integrity: "ok", LostAcknowledged: 1, Duplicates: 2},
		{Run: "crash-full", Integrity: "*** corrupt", UnreadableReads: 3},
		{Run: "crash-off", Unreadable: "gone"},
	}}
	w := history.NewWriter(history.Header{Experiment: "crash"})
	fo, err := CrashOutcome([]string{"notesbench", "crash"}, rec, &results.CheckReport{}, []string{"linearizability"}, w)
	if err != nil {
		t.Fatal(err)
	}
	if fo.Runs != 3 || fo.Unreadable != 2 || *fo.LostAcknowledged != 1 || *fo.AppliedTwice != 2 || *fo.EmptyReads != 3 || fo.Errors != nil {
		t.Errorf("counts %+v", fo)
	}
	if fo.Part.Name != "crash" || !slices.Equal(fo.Part.Command, []string{"notesbench", "crash"}) || len(fo.History) == 0 || len(fo.Tables) == 0 {
		t.Errorf("part %+v, %d history bytes, %d tables", fo.Part, len(fo.History), len(fo.Tables))
	}
	if !slices.Equal(fo.Warnings, []string{"could not judge everything: linearizability"}) {
		t.Errorf("warnings %q", fo.Warnings)
	}
}
