package results

import (
	"fmt"
)

// CheckInvariants returns a Diff for every row that breaks what must hold on any
// clock, whatever the interleaving: re-applying after a conflict never loses a
// line (race), per-tab versions give no conflicts between editors on different
// tabs and nothing is lost there (tabs), and collision-free versions never lose a
// line (fast). Other experiments have no clock-dependent figures and no
// invariants here.
func CheckInvariants[R Row](experiment string, rows []R) []Diff {
	var out []Diff
	must := func(i int, row R, figure, why string) {
		if v, _ := row.FigureOf(figure); len(v.Nums) != 1 || v.Nums[0] != 0 {
			out = append(out, Diff{Path: fmt.Sprintf("rows[%d].%s", i, figure), Baseline: why, Current: describeValue(v)})
		}
	}
	for i, r := range rows {
		switch experiment {
		case "race":
			if r.KeyOf("policy") == "reapply" {
				must(i, r, "lost", "0 (re-applying after a conflict never loses a line)")
			}
		case "tabs":
			must(i, r, "lost", "0 (the editors never touch the same tab)")
			if r.KeyOf("guard") == "tab" {
				must(i, r, "conflicts_claude", "0 (per-tab versions)")
				must(i, r, "conflicts_human", "0 (per-tab versions)")
			}
		case "fast":
			if f := r.KeyOf("version_format"); f == "us-suffix" || f == "counter" {
				must(i, r, "lost", fmt.Sprintf("0 (%s versions never collide)", f))
			}
		}
	}
	return out
}

// CheckRanges returns a Diff for every figure of rows that falls outside the
// central range recorded for it in a baseline's verdicts (ours_low..ours_high of
// the replications behind them). Ratio, text and per-seed verdicts are skipped.
func CheckRanges[R Row](exp *Experiment, recorded []Verdict, rows []R) []Diff {
	var out []Diff
	for i, row := range rows {
		pub, ok := exp.Match(RowKey(exp, row))
		if !ok {
			continue
		}
		label := exp.Label(pub)
		for _, v := range recorded {
			if v.Row != label || v.Seed != 0 || (v.Outcome != Consistent && v.Outcome != Differs) {
				continue
			}
			x, ok := row.FigureOf(v.Figure)
			if ok && len(x.Nums) == 1 && (x.Nums[0] < v.OursLow || x.Nums[0] > v.OursHigh) {
				out = append(out, Diff{
					Path:     fmt.Sprintf("rows[%d].%s", i, v.Figure),
					Baseline: fmt.Sprintf("range %g–%g", v.OursLow, v.OursHigh),
					Current:  describeValue(x),
				})
			}
		}
	}
	return out
}
