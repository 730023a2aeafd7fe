package results

import (
	"strings"
	"testing"
)

// A figure is checked against the prediction interval of its recorded
// replications, the false-alarm rate shared among the figures; a figure that
// never varied, a ratio and a baseline without replications are not checked.
func TestCheckRanges(t *testing.T) {
	exp, _ := Lookup("race")
	recorded := []Verdict{
		{Figure: "conflicts_claude", Row: "note reapply", OursMean: 191.5, OursSD: 4, OursLow: 183, OursHigh: 200, N: 20, Outcome: Differs},
		{Figure: "conflicts_human", Row: "note reapply", OursMean: 112, OursSD: 3, OursLow: 105, OursHigh: 118, N: 20, Outcome: Consistent},
		{Figure: "max_tries", Row: "note reapply", OursMean: 2, OursLow: 2, OursHigh: 2, N: 20, Outcome: Consistent},
		{Figure: "wall_s", Row: "note reapply", OursLow: 9, OursHigh: 10, OursSD: 0.1, N: 20, Outcome: RatioOnly},
	}
	// α = 0.01/2 per figure; t(1 − α/2, 19) = 3.17: conflicts_claude, a count,
	// 191.5 ± (3.17·4·√1.05 + 0.5) = 178.0–205.0.
	in := []raceRow{{Guard: "note", Policy: "reapply", ConflictsClaude: 205, ConflictsHuman: 112, MaxTries: 9, WallS: 20}}
	c := CheckRanges(exp, recorded, in)
	if len(c.Diffs) != 0 || c.Checked != 2 || c.Constant != 1 || c.MinN != 20 || c.Estimated {
		t.Fatalf("inside: %+v", c)
	}
	want := "2 figures within their 99.5 % prediction intervals from 20 recorded samples (false-alarm rate ≤ 1 % per run over all of them, Bonferroni); 1 that never varied left to the invariants"
	if c.Summary() != want {
		t.Errorf("summary %q, want %q", c.Summary(), want)
	}
	out := []raceRow{{Guard: "note", Policy: "reapply", ConflictsClaude: 206, ConflictsHuman: 112}}
	if d := CheckRanges(exp, recorded, out).Diffs; len(d) != 1 || d[0].Baseline != "range 178.0–205.0" || d[0].Current != "206" {
		t.Fatalf("outside: %v", d)
	}

	// A baseline recorded before standard deviations: estimated from the
	// recorded 99 % range, and said so.
	old := []Verdict{{Figure: "conflicts_claude", Row: "note reapply", OursMean: 191.5, OursLow: 183, OursHigh: 200, N: 20, Outcome: Differs}}
	if c := CheckRanges(exp, old, in); !c.Estimated || c.Checked != 1 || !strings.Contains(c.Summary(), "estimated from its ranges") {
		t.Errorf("old baseline: %+v %s", c, c.Summary())
	}
	if c := CheckRanges(exp, nil, in); c.Checked != 0 || c.Summary() != "no figure to check against a range: the baseline recorded no replications" {
		t.Errorf("no verdicts: %+v %s", c, c.Summary())
	}
}

func TestRoundRange(t *testing.T) {
	for _, tc := range []struct {
		low, high float64
		want      string
	}{
		{178.52499999999998, 207.52499999999998, "178.5–207.5"},
		{0, 0, "0–0"},
		{1.4, 1.4, "1.4–1.4"},
		{1.38123, 1.43, "1.3812–1.4300"},
		{1000, 3000, "1000–3000"},
	} {
		if got := RoundRange(tc.low, tc.high); got != tc.want {
			t.Errorf("RoundRange(%v, %v) = %q, want %q", tc.low, tc.high, got, tc.want)
		}
	}
}
