package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/notesbench/notesbench/results"
)

// DefaultAlpha is the significance level of the bench experiment's tests: a
// difference between guards is called significant when p < DefaultAlpha.
const DefaultAlpha = 0.05

// Run is one repetition of the bench experiment for one guard and one
// writer count: the latency of every timed write, in the order the writes
// finished per writer, writers one after another.
type Run struct {
	Guard   string `json:"guard"`
	Writers int    `json:"writers"`
	// Rep is the repetition, counting from 1.
	Rep int `json:"rep"`
	// SamplesUS holds one latency per timed write in microseconds, from the call
	// to its return. Warm-up writes are not in it.
	SamplesUS []float64 `json:"samples_us"`
	// PingsUS holds, over a server, the latency of transport round trips
	// (MCP ping), as many as the timed writes, in a phase of their own: the
	// floor under a call.
	PingsUS []float64 `json:"pings_us"`
	// PeerUS holds, when a peer ran beside this run, the latency of each of
	// its timed writes (the same transaction in another program).
	PeerUS []float64 `json:"peer_us"`
	// WallS is the duration of the timed phase in seconds: from the moment the
	// writers were released together to the return of the last write.
	WallS float64 `json:"wall_s"`
	// Retries is how many times the timed writes ran their transaction again
	// after the database refused it for a transient reason (a serialization
	// failure), when the store counts that (RetriesCounted: PostgreSQL).
	Retries        int64 `json:"retries"`
	RetriesCounted bool  `json:"retries_counted"`
	// The run under faults (--nemesis), each left out of the JSON when 0 so
	// that a run without faults reads as it always did. Faults is how many
	// faults the timed phase had, FaultLog each of them; Errors counts the
	// timed phase's calls that ended in an error (a timed write, or the read
	// of its version after it), Info those of them whose outcome nobody
	// knows. A timed write that did not end ok is not among SamplesUS.
	Faults   int         `json:"faults,omitempty"`
	FaultLog []FaultSpan `json:"fault_log,omitempty"`
	Errors   int         `json:"errors,omitempty"`
	Info     int         `json:"info,omitempty"`
	// Stopped says why the run ended before its writers were done (its
	// calls ended in errors as often as --max-errors allows), "" when it
	// ran to the end; SamplesUS holds what it timed until then.
	Stopped string `json:"stopped,omitempty"`
}

// EndedEarly implements Ender.
func (r Run) EndedEarly() string { return r.Stopped }

// FaultSpan is one fault of a bench run's timed phase: its kind (kill,
// pause, lose-replies, duplicate), when it began and ended in seconds from
// the start of the timed phase, the pid of the process it hit (0 for none)
// and what was done.
type FaultSpan struct {
	Kind   string  `json:"kind"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	PID    int     `json:"pid,omitempty"`
	Detail string  `json:"detail,omitempty"`
}

// Stats summarizes latency samples. Quantiles are Quantile of the raw
// samples (type 7), never averages of other quantiles.
type Stats struct {
	MedianUS float64 `json:"median_us"`
	P90US    float64 `json:"p90_us"`
	P99US    float64 `json:"p99_us"`
	P999US   float64 `json:"p999_us"`
	MaxUS    float64 `json:"max_us"`
	// Writes is the number of samples.
	Writes int `json:"writes"`
	// WritesPerS is Writes over the wall time they took.
	WritesPerS float64 `json:"writes_per_s"`
}

// StatsOf returns the statistics of samples (in µs) that took wallS seconds
// of wall time. With no samples the quantiles are NaN; with wallS ≤ 0 the
// throughput is 0.
func StatsOf(samples []float64, wallS float64) Stats {
	s := Stats{
		MedianUS: results.Quantile(samples, 0.5),
		P90US:    results.Quantile(samples, 0.90),
		P99US:    results.Quantile(samples, 0.99),
		P999US:   results.Quantile(samples, 0.999),
		MaxUS:    results.Quantile(samples, 1),
		Writes:   len(samples),
	}
	if wallS > 0 {
		s.WritesPerS = float64(len(samples)) / wallS
	}
	return s.rounded()
}

// rounded keeps nanosecond precision of the microsecond figures, and whole
// writes per second, so that JSON shows no float noise.
func (s Stats) rounded() Stats {
	for _, f := range []*float64{&s.MedianUS, &s.P90US, &s.P99US, &s.P999US, &s.MaxUS} {
		if !math.IsNaN(*f) {
			*f = results.Round(*f, 3)
		}
	}
	s.WritesPerS = results.Round(s.WritesPerS, 1)
	return s
}

// RunSummary is the statistics of one repetition: the "runs" of the
// bench report.
type RunSummary struct {
	Guard   string `json:"guard"`
	Writers int    `json:"writers"`
	Rep     int    `json:"rep"`
	Stats
	WallS float64 `json:"wall_s"`
	// Faults, FaultLog, Errors and Info are the run's (Run's), left
	// out when 0.
	Faults   int         `json:"faults,omitempty"`
	FaultLog []FaultSpan `json:"fault_log,omitempty"`
	Errors   int         `json:"errors,omitempty"`
	Info     int         `json:"info,omitempty"`
}

// SummarizeRuns returns the statistics of each run, in order.
func SummarizeRuns(runs []Run) []RunSummary {
	out := make([]RunSummary, len(runs))
	for i, r := range runs {
		out[i] = RunSummary{Guard: r.Guard, Writers: r.Writers, Rep: r.Rep,
			Stats: StatsOf(r.SamplesUS, r.WallS), WallS: results.Round(r.WallS, 6),
			Faults: r.Faults, FaultLog: r.FaultLog, Errors: r.Errors, Info: r.Info}
	}
	return out
}

// Row is one row of the bench table: one guard at one writer count, over
// all its repetitions. The figures are those of the pooled samples; writes per
// second is the pooled writes over the summed wall time of the repetitions.
type Row struct {
	Guard      string  `json:"guard"`
	Writers    int     `json:"writers"`
	MedianUS   float64 `json:"median_us"`
	P90US      float64 `json:"p90_us"`
	P99US      float64 `json:"p99_us"`
	P999US     float64 `json:"p999_us"`
	MaxUS      float64 `json:"max_us"`
	Writes     int     `json:"writes"`
	Reps       int     `json:"reps"`
	WritesPerS float64 `json:"writes_per_s"`
	// PingMedianUS is, over a server, the median transport round trip (MCP
	// ping) taken beside the writes: MedianUS − PingMedianUS is what the
	// contract costs above the wire. 0 on the embedded store.
	PingMedianUS float64 `json:"ping_median_us,omitempty"`
	// PeerMedianUS are the medians of the peer's runs beside ours, one per
	// repetition, and PeerRatio the median of our median over the peer's,
	// per repetition (a peer runs only for a PostgreSQL store: pgbench).
	PeerMedianUS []float64 `json:"peer_median_us,omitempty"`
	PeerRatio    float64   `json:"peer_ratio,omitempty"`
	// RetriesPerWrite is the retries of the timed writes over their number,
	// when the store counts retries (PostgreSQL), and nil when it does not:
	// what racing writers cost under SERIALIZABLE.
	RetriesPerWrite *float64 `json:"retries_per_write,omitempty"`
	// RepMediansUS are the medians of the repetitions, in order: the published
	// median is the range of these. The JSON report holds them in its runs.
	RepMediansUS []float64 `json:"-"`
	// RepP99sUS are the p99s of the repetitions, in order (in the runs too).
	RepP99sUS []float64 `json:"-"`
	// Faults, Errors and Info sum the repetitions' (Run's): what faults
	// (--nemesis) cost, left out of the JSON when 0.
	Faults int `json:"faults,omitempty"`
	Errors int `json:"errors,omitempty"`
	Info   int `json:"info,omitempty"`
}

// Faulted reports whether a repetition of the row had a fault or a call
// that did not end ok: its timings were taken under faults.
func (r Row) Faulted() bool { return r.Faults > 0 || r.Errors > 0 }

// benchGroup is the runs of one guard at one writer count.
type benchGroup struct {
	guard   string
	writers int
	runs    []Run
}

// groupBench groups runs by (writers, guard), in the order each pair first
// appears.
func groupBench(runs []Run) []benchGroup {
	var groups []benchGroup
	for _, r := range runs {
		i := slices.IndexFunc(groups, func(g benchGroup) bool { return g.guard == r.Guard && g.writers == r.Writers })
		if i < 0 {
			groups = append(groups, benchGroup{guard: r.Guard, writers: r.Writers})
			i = len(groups) - 1
		}
		groups[i].runs = append(groups[i].runs, r)
	}
	return groups
}

// pooled returns every sample of the group's runs and their summed wall time.
func (g benchGroup) pooled() ([]float64, float64) {
	var all []float64
	var wall float64
	for _, r := range g.runs {
		all = append(all, r.SamplesUS...)
		wall += r.WallS
	}
	return all, wall
}

// retriesPerWrite returns the group's retries over its timed writes, or nil
// when a run's store did not count them.
func (g benchGroup) retriesPerWrite() *float64 {
	var retries int64
	writes := 0
	for _, r := range g.runs {
		if !r.RetriesCounted {
			return nil
		}
		retries += r.Retries
		writes += len(r.SamplesUS)
	}
	if writes == 0 {
		return nil
	}
	v := results.Round(float64(retries)/float64(writes), 4)
	return &v
}

// repQuantiles returns the q-quantile of each run's samples.
func (g benchGroup) repQuantiles(q float64) []float64 {
	out := make([]float64, len(g.runs))
	for i, r := range g.runs {
		out[i] = results.Round(results.Quantile(r.SamplesUS, q), 3)
	}
	return out
}

// Summarize folds runs into one row per (writers, guard), in the order
// each pair first appears in runs.
func Summarize(runs []Run) []Row {
	var rows []Row
	for _, g := range groupBench(runs) {
		all, wall := g.pooled()
		s := StatsOf(all, wall)
		row := Row{
			Guard: g.guard, Writers: g.writers,
			MedianUS: s.MedianUS, P90US: s.P90US, P99US: s.P99US, P999US: s.P999US, MaxUS: s.MaxUS,
			Writes: s.Writes, Reps: len(g.runs), WritesPerS: s.WritesPerS,
			RepMediansUS: g.repQuantiles(0.5), RepP99sUS: g.repQuantiles(0.99),
		}
		var pings []float64
		for _, r := range g.runs {
			pings = append(pings, r.PingsUS...)
		}
		if len(pings) > 0 {
			row.PingMedianUS = results.Round(results.Quantile(pings, 0.5), 3)
		}
		var ratios []float64
		for _, r := range g.runs {
			if len(r.PeerUS) > 0 {
				ratios = append(ratios, results.Quantile(r.SamplesUS, 0.5)/results.Quantile(r.PeerUS, 0.5))
				row.PeerMedianUS = append(row.PeerMedianUS, results.Round(results.Quantile(r.PeerUS, 0.5), 3))
			}
		}
		if len(ratios) > 0 {
			row.PeerRatio = results.Round(results.Quantile(ratios, 0.5), 3)
		}
		row.RetriesPerWrite = g.retriesPerWrite()
		for _, r := range g.runs {
			row.Faults += r.Faults
			row.Errors += r.Errors
			row.Info += r.Info
		}
		rows = append(rows, row)
	}
	return rows
}

// Test-over values of a GuardDiff.
const (
	// OverRepMedians tests the medians of the repetitions, one value per
	// repetition: the run-to-run noise is what a difference must beat.
	OverRepMedians = "rep_medians"
	// OverPooled tests every write of every repetition. Writes of one
	// repetition share its database and moment, so they are not independent
	// draws, and with thousands of them a tiny shift is "significant".
	OverPooled = "pooled"
)

// GuardDiff is the difference in per-write latency between two guards at one
// writer count, with a two-sided Mann–Whitney U test.
type GuardDiff struct {
	Writers int    `json:"writers"`
	Guard   string `json:"guard"`
	Base    string `json:"base"`
	// Over says what was tested: OverRepMedians or OverPooled.
	Over string `json:"over"`
	// N and NBase are the sample sizes of Guard and Base.
	N     int `json:"n"`
	NBase int `json:"n_base"`
	// Delta is the median of Guard's values over the median of Base's, minus 1:
	// −0.018 is 1.8 % faster.
	Delta float64 `json:"delta"`
	U     float64 `json:"u"`
	P     float64 `json:"p"`
	Alpha float64 `json:"alpha"`
	// Significant is P < Alpha.
	Significant bool `json:"significant"`
	// MinP is the smallest p the test can give at these sample sizes (the
	// exact test without ties); when it is not below Alpha the test cannot
	// find a difference, whatever the data.
	MinP float64 `json:"min_p"`
}

// CompareGuards tests, at every writer count, each guard against every guard
// that comes before it in runs ("note vs none", "tab vs none", "tab vs note"),
// over the per-repetition medians and over the pooled samples.
func CompareGuards(runs []Run, alpha float64) []GuardDiff {
	groups := groupBench(runs)
	var out []GuardDiff
	var writers []int
	for _, g := range groups {
		if !slices.Contains(writers, g.writers) {
			writers = append(writers, g.writers)
		}
	}
	for _, w := range writers {
		var gs []benchGroup
		for _, g := range groups {
			if g.writers == w {
				gs = append(gs, g)
			}
		}
		for j := range gs {
			for i := 0; i < j; i++ {
				a, b := gs[j], gs[i]
				out = append(out, guardDiff(w, a.guard, b.guard, OverRepMedians, a.repQuantiles(0.5), b.repQuantiles(0.5), alpha))
				pa, _ := a.pooled()
				pb, _ := b.pooled()
				out = append(out, guardDiff(w, a.guard, b.guard, OverPooled, pa, pb, alpha))
			}
		}
	}
	return out
}

func guardDiff(writers int, guard, base, over string, a, b []float64, alpha float64) GuardDiff {
	u, p := results.MannWhitney(a, b)
	return GuardDiff{
		Writers: writers, Guard: guard, Base: base, Over: over, N: len(a), NBase: len(b),
		Delta: results.Round(results.Quantile(a, 0.5)/results.Quantile(b, 0.5)-1, 6),
		U:     u, P: results.Round(p, 6), Alpha: alpha, Significant: p < alpha,
		MinP: minMannWhitneyP(len(a), len(b)),
	}
}

// minMannWhitneyP returns the smallest two-sided p-value MannWhitney can
// return for samples of sizes n1 and n2 without ties: 2 / C(n1+n2, n1), capped
// at 1, when both are at most MannWhitneyExactLimit; above that the normal
// approximation can reach 0 and minMannWhitneyP returns 0. It is NaN when n1 or
// n2 is 0.
func minMannWhitneyP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return math.NaN()
	}
	if n1 > results.MannWhitneyExactLimit || n2 > results.MannWhitneyExactLimit {
		return 0
	}
	// C(n1+n2, n1) by the multiplicative formula, exact in float64 for these sizes.
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// benchQuantiles are the quantiles the bench tables show, with the fewest
// samples each needs: below 1/(1−q) samples, fewer than one sample lies beyond
// the quantile and it is an interpolation towards the maximum.
var benchQuantiles = []struct {
	name string
	q    float64
	need int
}{
	{"p90", 0.90, 10},
	{"p99", 0.99, 100},
	{"p99.9", 0.999, 1000},
}

// Warnings returns what a reader of the bench tables should know about the
// ground the figures stand on: a percentile from fewer samples than it needs
// (pooled, or per repetition), and a test over per-repetition medians that
// cannot reach alpha with so few repetitions.
func Warnings(runs []Run, diffs []GuardDiff, alpha float64) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, g := range groupBench(runs) {
		all, _ := g.pooled()
		minRep := -1
		for _, r := range g.runs {
			if minRep < 0 || len(r.SamplesUS) < minRep {
				minRep = len(r.SamplesUS)
			}
		}
		for _, bq := range benchQuantiles {
			switch {
			case len(all) < bq.need:
				add(fmt.Sprintf("%s rests on %d samples (fewer than %d) for guard %s, %d writer(s): less than one sample lies beyond it",
					bq.name, len(all), bq.need, g.guard, g.writers))
			case minRep < bq.need:
				add(fmt.Sprintf("per-repetition %s rests on %d samples (fewer than %d) for guard %s, %d writer(s): read the pooled figure",
					bq.name, minRep, bq.need, g.guard, g.writers))
			}
		}
	}
	for _, d := range diffs {
		if d.Over == OverRepMedians && !(d.MinP < alpha) {
			add(fmt.Sprintf("with %d and %d repetitions the test over per-repetition medians cannot reach p < %g (its smallest p is %.3f): it can only say the guards are not told apart; use --reps 4 or more",
				d.N, d.NBase, alpha, d.MinP))
		}
	}
	return out
}

// Verdicts compares the rows of one writer with the published bench
// figures, as ratios only (timings depend on the machine): median_us from the
// per-repetition medians, whose range is what was published, and p99_us from
// the per-repetition p99s. Rows of other writer counts and guards without a
// published row are skipped.
func Verdicts(exp *results.Experiment, rows []Row) []results.Verdict {
	var out []results.Verdict
	for _, r := range rows {
		if r.Writers != 1 {
			continue
		}
		pub, ok := exp.Match(map[string]string{"guard": r.Guard})
		if !ok {
			continue
		}
		label := exp.Label(pub)
		for _, name := range exp.Figures {
			fig, ok := pub.Figure(name)
			if !ok {
				continue
			}
			var samples []float64
			switch name {
			case "median_us":
				samples = r.RepMediansUS
			case "p99_us":
				samples = r.RepP99sUS
			default:
				continue
			}
			out = append(out, results.JudgeRatio(name, label, samples, fig, results.DefaultMass))
		}
	}
	return out
}

// benchFields reads BenchRows by the names published.json uses.
var benchFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"guard":   func(r Row) string { return r.Guard },
		"writers": func(r Row) string { return strconv.Itoa(r.Writers) },
	},
	Figures: map[string]func(Row) results.Value{
		"median_us":    results.Number(func(r Row) float64 { return r.MedianUS }),
		"p90_us":       results.Number(func(r Row) float64 { return r.P90US }),
		"p99_us":       results.Number(func(r Row) float64 { return r.P99US }),
		"p999_us":      results.Number(func(r Row) float64 { return r.P999US }),
		"max_us":       results.Number(func(r Row) float64 { return r.MaxUS }),
		"writes_per_s": results.Number(func(r Row) float64 { return r.WritesPerS }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return benchFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return benchFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return benchFields.Names() }
