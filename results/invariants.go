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
func CheckInvariants(experiment string, rows []map[string]any) []Diff {
	var out []Diff
	must := func(i int, field, why string, ok bool, row map[string]any) {
		if !ok {
			out = append(out, Diff{Path: fmt.Sprintf("rows[%d].%s", i, field), Baseline: why, Current: fmt.Sprint(row[field])})
		}
	}
	for i, r := range rows {
		switch experiment {
		case "race":
			if r["policy"] == "reapply" {
				must(i, "lost", "0 (re-applying after a conflict never loses a line)", r["lost"] == 0.0, r)
			}
		case "tabs":
			must(i, "lost", "0 (the editors never touch the same tab)", r["lost"] == 0.0, r)
			if r["guard"] == "tab" {
				must(i, "conflicts_claude", "0 (per-tab versions)", r["conflicts_claude"] == 0.0, r)
				must(i, "conflicts_human", "0 (per-tab versions)", r["conflicts_human"] == 0.0, r)
			}
		case "fast":
			if f := r["version_format"]; f == "us-suffix" || f == "counter" {
				must(i, "lost", fmt.Sprintf("0 (%s versions never collide)", f), r["lost"] == 0.0, r)
			}
		}
	}
	return out
}

// CheckRanges returns a Diff for every figure of rows that falls outside the
// central range recorded for it in a baseline's verdicts (ours_low..ours_high of
// the replications behind them). Ratio, text and per-seed verdicts are skipped.
func CheckRanges(exp *Experiment, recorded []Verdict, rows []map[string]any) []Diff {
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
			x, ok := row[v.Figure].(float64)
			if ok && (x < v.OursLow || x > v.OursHigh) {
				out = append(out, Diff{
					Path:     fmt.Sprintf("rows[%d].%s", i, v.Figure),
					Baseline: fmt.Sprintf("range %g–%g", v.OursLow, v.OursHigh),
					Current:  fmt.Sprint(x),
				})
			}
		}
	}
	return out
}
