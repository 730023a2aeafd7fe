package bench

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders the bench rows: per guard and writer count, the pooled
// latency figures per write in µs and the throughput. With exp set, the
// published median (a range over repetitions, so shown beside the range of our
// per-repetition medians) and p99 stand beside ours on one-writer rows;
// warnings become notes starting "warning:".
func Table(rows []Row, exp *results.Experiment, warnings []string) report.Table {
	show := exp != nil
	t := report.Table{
		Title:  "Time per edit_note_tab write (µs), by version guard",
		Keys:   2,
		Header: []string{"Guard", "Writers", "Median"},
	}
	t.Header = append(t.Header, "Median per rep")
	if show {
		t.Header = append(t.Header, report.PublishedHeader("Median per rep"))
	}
	t.Header = append(t.Header, "p90", "p99")
	if show {
		t.Header = append(t.Header, report.PublishedHeader("p99"))
	}
	t.Header = append(t.Header, "p99.9", "Max", "Writes", "Writes/s")
	wire := slices.ContainsFunc(rows, func(r Row) bool { return r.PingMedianUS > 0 })
	peer := slices.ContainsFunc(rows, func(r Row) bool { return r.PeerRatio > 0 })
	if peer {
		t.Header = append(t.Header, "Peer median per rep", "Ours / peer")
		t.Notes = append(t.Notes, "peer: pgbench at one client running the same transaction (the same statements in the same two round trips) beside each repetition, alternately first; ours / peer is the median of the per-repetition ratios")
	}
	if wire {
		t.Header = append(t.Header, "Ping (median)", "Median − ping")
		t.Notes = append(t.Notes, "over a server the cheapest round trip its protocol has (an MCP ping; a server/discover on 2026-07-28, which has no ping) is timed in a phase of its own, as many as the timed writes, under the same load: the transport's floor; the median less the ping is what the contract costs above it")
	}
	retried := slices.ContainsFunc(rows, func(r Row) bool { return r.RetriesPerWrite != nil })
	if retried {
		t.Header = append(t.Header, "Retries per write")
		t.Notes = append(t.Notes, "retries per write: how many times a timed write ran its transaction again after the database refused it (a serialization failure, as SERIALIZABLE gives racing writers), over the timed writes")
	}
	faulted := slices.ContainsFunc(rows, Row.Faulted)
	if faulted {
		t.Header = append(t.Header, "Errors", "Info", "Faults")
		t.Notes = append(t.Notes, benchFaultNote)
	}
	for _, r := range rows {
		pubMedian, pubP99 := report.NotPublished, report.NotPublished
		if show && r.Writers == 1 {
			pub := report.PublishedFor(exp, map[string]string{"guard": r.Guard})
			pubMedian, pubP99 = pub.Cell(nil, "median_us"), pub.Cell(nil, "p99_us")
		}
		row := []string{r.Guard, report.Int(int64(r.Writers)), us(r.MedianUS), usRange(r.RepMediansUS)}
		if show {
			row = append(row, pubMedian)
		}
		row = append(row, us(r.P90US), us(r.P99US))
		if show {
			row = append(row, pubP99)
		}
		row = append(row, us(r.P999US), us(r.MaxUS), report.Int(int64(r.Writes)), report.Fixed(r.WritesPerS, 0))
		if peer {
			if r.PeerRatio > 0 {
				row = append(row, usRange(r.PeerMedianUS), report.Fixed(r.PeerRatio, 2)+"×")
			} else {
				row = append(row, report.NotPublished, report.NotPublished)
			}
		}
		if wire {
			row = append(row, us(r.PingMedianUS), us(r.MedianUS-r.PingMedianUS))
		}
		if retried {
			if r.RetriesPerWrite != nil {
				row = append(row, report.Fixed(*r.RetriesPerWrite, 3))
			} else {
				row = append(row, report.NotPublished)
			}
		}
		if faulted {
			row = append(row, report.Int(int64(r.Errors)), report.Int(int64(r.Info)), report.Int(int64(r.Faults)))
		}
		t.Rows = append(t.Rows, row)
	}
	for _, w := range warnings {
		t.Notes = append(t.Notes, "warning: "+w)
	}
	return t
}

// benchFaultNote says what the columns of faults hold, and what the
// timings taken under them are.
const benchFaultNote = "under faults (--nemesis): errors are the timed phase's calls that did not end ok (a timed write, or the read of its writer's version after it), info those of them whose outcome nobody knows, faults those the target made; a write that did not end ok is not timed and not sent again, so the timings are of acknowledged writes only, and writes/s is those writes over a wall time the faults are in: figures of this run, not to be compared with a run without faults or with the published ones"

// RunsTable renders the figures of each repetition, with, when any
// repetition had faults or calls that did not end ok, their counts.
func RunsTable(runs []RunSummary) report.Table {
	t := report.Table{
		Title:  "Per repetition (µs per write)",
		Keys:   3,
		Header: []string{"Guard", "Writers", "Rep", "Median", "p90", "p99", "p99.9", "Max", "Writes", "Writes/s"},
	}
	faulted := slices.ContainsFunc(runs, func(r RunSummary) bool { return r.Faults > 0 || r.Errors > 0 })
	if faulted {
		t.Header = append(t.Header, "Errors", "Info", "Faults")
	}
	for _, r := range runs {
		row := []string{r.Guard, report.Int(int64(r.Writers)), report.Int(int64(r.Rep)), us(r.MedianUS), us(r.P90US),
			us(r.P99US), us(r.P999US), us(r.MaxUS), report.Int(int64(r.Writes)), report.Fixed(r.WritesPerS, 0)}
		if faulted {
			row = append(row, report.Int(int64(r.Errors)), report.Int(int64(r.Info)), report.Int(int64(r.Faults)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// DiffTable renders the tests of the differences between guards, one row
// per test.
func DiffTable(diffs []GuardDiff, alpha float64) report.Table {
	t := report.Table{
		Title:  "Differences between guards (two-sided Mann–Whitney U test)",
		Keys:   2,
		Header: []string{"Writers", "Comparison", "Test over", "Result"},
		Notes: []string{
			"significance level α = " + strconv.FormatFloat(alpha, 'g', -1, 64) + ": a difference is significant when p < α",
			"difference: our median of the first guard over that of the second, minus 1 (negative: the first is faster)",
			"the writes of one repetition share its database and moment, so pooled writes are not independent draws: with thousands of them a shift smaller than the run-to-run noise reads as significant; the test over per-repetition medians is the one that weighs that noise",
		},
	}
	for _, d := range diffs {
		t.Rows = append(t.Rows, []string{report.Int(int64(d.Writers)), d.Guard + " vs " + d.Base, overLabel(d), diffResult(d)})
	}
	return t
}

// diffResult writes the outcome of a test: "−1.8 % (p = 0.42, no significant
// difference)", or "… significant at α = 0.05)" when p < α. The sign is a true
// minus sign.
func diffResult(d GuardDiff) string {
	verdict := "no significant difference"
	if d.Significant {
		verdict = "significant at α = " + strconv.FormatFloat(d.Alpha, 'g', -1, 64)
	}
	return signedPct(d.Delta) + " (p " + pValue(d.P) + ", " + verdict + ")"
}

// VerdictTable is report.VerdictTable for the machine-dependent bench figures:
// every verdict is a ratio, so its note says that instead of a count of
// consistent figures.
func VerdictTable(verdicts []results.Verdict) report.Table {
	t := report.VerdictTable("Ours against the published figures (ratios: timings depend on the machine)", results.DefaultMass, verdicts)
	t.Notes = []string{"verdict: timings are compared as ratios only (our median over the published midpoint), never judged consistent or different"}
	return t
}

// GoBench returns one Go benchmark line per repetition, named
// "EditNoteTab/guard=note" (with "/writers=N" for more than one writer), with
// N the writes of the repetition and ns/op its median latency per write (not
// the mean go test reports), then p99 and p99.9 latencies and the throughput,
// for benchstat. When a repetition had faults or calls that did not end ok
// (--nemesis), every name ends "/under=faults", so that benchstat never sets
// them beside the lines of a run without faults.
func GoBench(runs []RunSummary) []report.Benchmark {
	out := make([]report.Benchmark, 0, len(runs))
	faulted := slices.ContainsFunc(runs, func(r RunSummary) bool { return r.Faults > 0 || r.Errors > 0 })
	for _, r := range runs {
		if r.Writes == 0 {
			continue // faults left it no write to time
		}
		name := "EditNoteTab/guard=" + r.Guard
		if r.Writers != 1 {
			name += "/writers=" + strconv.Itoa(r.Writers)
		}
		if faulted {
			name += "/under=faults"
		}
		out = append(out, report.Benchmark{Name: name, N: int64(r.Writes), Metrics: []report.Metric{
			{Value: nsOf(r.MedianUS), Unit: "ns/op"},
			{Value: nsOf(r.P99US), Unit: "p99-ns/op"},
			{Value: nsOf(r.P999US), Unit: "p99.9-ns/op"},
			{Value: r.WritesPerS, Unit: "writes/s"},
		}})
	}
	return out
}

// nsOf turns a figure in µs into whole nanoseconds.
func nsOf(us float64) float64 {
	return float64(int64(us*1000 + 0.5))
}

// us formats a latency in µs with one decimal.
func us(v float64) string { return report.Fixed(v, 1) }

// usRange formats per-repetition values as their range, "57.0–58.8", or one
// value when there is one.
func usRange(vs []float64) string {
	if len(vs) == 0 {
		return "n/a"
	}
	lo, hi := vs[0], vs[0]
	for _, v := range vs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	if us(lo) == us(hi) {
		return us(lo)
	}
	return us(lo) + "–" + us(hi)
}

// signedPct formats a relative difference with a sign and one decimal:
// −0.018 → "−1.8 %", 0.05 → "+5.0 %".
func signedPct(f float64) string {
	s := report.Pct(f)
	switch {
	case s == "n/a" || strings.Trim(s, "0. %") == "":
		return s
	case strings.HasPrefix(s, "-"):
		return "−" + s[1:]
	}
	return "+" + s
}

// pValue formats a p-value for "p …": "= 0.42" with two significant digits,
// or "< 0.0001".
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "= n/a"
	case p < 0.0001:
		return "< 0.0001"
	case p >= 0.1:
		return "= " + strconv.FormatFloat(p, 'f', 2, 64)
	}
	return "= " + strconv.FormatFloat(p, 'g', 2, 64)
}

// overLabel says what a test was over, with the sample sizes.
func overLabel(d GuardDiff) string {
	what := "pooled writes"
	if d.Over == OverRepMedians {
		what = "per-repetition medians"
	}
	return what + " (" + report.Int(int64(d.N)) + " vs " + report.Int(int64(d.NBase)) + ")"
}
