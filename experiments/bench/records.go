package bench

import (
	"strconv"

	"github.com/notesbench/notesbench/report"
)

// DetailRecords returns the records of bench's repetitions and of its
// tests between guards.
func DetailRecords(runs []RunSummary, diffs []GuardDiff) []report.Record {
	var out []report.Record
	for _, r := range runs {
		row := r.Guard + " " + strconv.Itoa(r.Writers) + " " + strconv.Itoa(r.Rep)
		for _, f := range []struct {
			name string
			v    float64
		}{{"median_us", r.MedianUS}, {"p90_us", r.P90US}, {"p99_us", r.P99US}, {"p999_us", r.P999US},
			{"max_us", r.MaxUS}, {"writes", float64(r.Writes)}, {"writes_per_s", r.WritesPerS}} {
			out = append(out, report.Record{Table: "bench_repetitions", Row: row, Figure: f.name, Ours: report.Plain(f.v)})
		}
	}
	for _, d := range diffs {
		row := strconv.Itoa(d.Writers) + " " + d.Guard + " " + d.Base + " " + d.Over
		verdict := "no significant difference"
		if d.Significant {
			verdict = "significant"
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"delta", d.Delta}, {"p", d.P}, {"u", d.U}, {"n", float64(d.N)}, {"n_base", float64(d.NBase)}, {"alpha", d.Alpha}} {
			out = append(out, report.Record{Table: "bench_differences", Row: row, Figure: f.name, Ours: report.Plain(f.v), Verdict: verdict})
		}
	}
	return out
}

// LatencySeriesOf pools bench's per-write samples by guard, one writer only.
func LatencySeriesOf(runs []Run) []report.LatencySeries {
	var out []report.LatencySeries
	index := map[string]int{}
	for _, r := range runs {
		if r.Writers != 1 {
			continue
		}
		i, ok := index[r.Guard]
		if !ok {
			i = len(out)
			index[r.Guard] = i
			out = append(out, report.LatencySeries{Label: "guard " + r.Guard})
		}
		out[i].SamplesUS = append(out[i].SamplesUS, r.SamplesUS...)
	}
	return out
}
