package report

import (
	"testing"
	"time"
)

// A run that will take more than a minute says about how long it has left,
// from its pace so far.
func TestProgressEstimatesLongRuns(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{3, 15, 2 * time.Second, "race: 3/15 runs"},
		{1, 1_000_000, 1500 * time.Millisecond, "race: 1/1,000,000 runs, about 416 h 40 min left"},
		{10, 100, 10 * time.Second, "race: 10/100 runs, about 2 min left"},
		{99, 100, 99 * time.Second, "race: 99/100 runs, about 1 s left"},
		{0, 100, time.Minute, "race: 0/100 runs"},
	} {
		if got := ProgressLine("race", tc.done, tc.total, tc.elapsed); got != tc.want {
			t.Errorf("%d/%d after %v: %q, want %q", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
}
