package sources

import (
	"slices"
	"testing"
)

// The columns of faults show only when a row has a figure in them: a run
// without --nemesis prints the table it always did.
func TestFaultColumns(t *testing.T) {
	if got := Table([]Row{{KeyPolicy: "normalized"}}, nil).Header; slices.Contains(got, "Faults") || len(got) != 5 {
		t.Errorf("sources without faults: header %q", got)
	}
	s := Table([]Row{{KeyPolicy: "normalized", Info: 1, Faults: 2, Errors: 1}}, nil)
	if got := s.Rows[0][len(s.Rows[0])-3:]; !slices.Equal(got, []string{"1", "1", "2"}) {
		t.Errorf("sources with faults: %q %q", s.Header, s.Rows[0])
	}
}
