package race

import (
	"slices"
	"testing"
)

// The columns of faults show only when a row has a figure in them: a run
// without --nemesis prints the table it always did.
func TestFaultColumns(t *testing.T) {
	quiet := []Row{{Guard: "note", Policy: "reapply", Intended: 10}}
	if got := Table(quiet, nil).Header; slices.Contains(got, "Faults") || len(got) != 8 {
		t.Errorf("race without faults: header %q", got)
	}
	faulted := []Row{{Guard: "note", Policy: "reapply", Intended: 10, Faults: 3, InfoClaude: 2, InfoHuman: 1, UnreadableHuman: 1}}
	tab := Table(faulted, nil)
	want := []string{"Faults", "Info claude / human", "Unreadable claude / human"}
	if got := tab.Header[len(tab.Header)-3:]; !slices.Equal(got, want) {
		t.Errorf("race with faults: header ends %q, want %q", got, want)
	}
	if got := tab.Rows[0][len(tab.Rows[0])-3:]; !slices.Equal(got, []string{"3", "2 / 1", "0 / 1"}) {
		t.Errorf("race with faults: cells %q", got)
	}
}
