package create

import (
	"slices"
	"testing"
)

// The columns of faults show only when a row has a figure in them: a run
// without --nemesis prints the table it always did.
func TestFaultColumns(t *testing.T) {
	quiet := []Row{{Table: "a", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{5}, TabsCreated: []int{5}, Duplicates: []int{0}}}
	if got := Tables(quiet, nil)[0].Table.Header; slices.Contains(got, "Faults") || len(got) != 4 {
		t.Errorf("create without faults: header %q", got)
	}
	faulted := []Row{{Table: "a", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{5}, TabsCreated: []int{5}, Duplicates: []int{0},
		Errors: []int{2}, Info: []int{2}, Faults: []int{4}}}
	a := Tables(faulted, nil)[0].Table
	if got := a.Header[len(a.Header)-3:]; !slices.Equal(got, []string{"Errors", "Info", "Faults"}) {
		t.Errorf("create with faults: header %q", a.Header)
	}
}
