package report

import (
	"strings"
	"testing"

	"github.com/notesbench/notesbench/results"
)

// Counts of one take the singular: "1 of 1 published figure", not "1
// replications".
func TestPlurals(t *testing.T) {
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
