package experiment

import (
	"strconv"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Bench is the bench experiment: what the version check costs per write.
var Bench = Define(Def[sim.Bench, results.BenchRow, results.BenchRun]{
	Info: Info{
		Name:  "bench",
		Short: "What the version check costs per write (edit_note_tab latency per guard)",
		Long: `bench times sequential edit_note_tab replace_text writes through the store's
normal write path, on a file database in WAL mode, per version guard: median,
p90, p99, p99.9 and max per write in µs and writes per second, per repetition
and pooled, and tests the difference between guards (Mann–Whitney U over the
per-repetition medians and over every write, α = 0.05). With --writers 1,2,4
each count of writers runs at once, each on its own connection and Note.
The defaults are the published setup; timings depend on the machine, so the
published figures are compared as ratios. --format gobench prints Go benchmark
lines for benchstat. With --target and --nemesis the timed writes run under
faults: a write a fault cut off is counted (errors, info), not timed, and the
timings are of that run only, compared with nothing.

See docs/development.md (speed), docs/postgres.md, docs/serve.md (the wire),
docs/faults.md (faults).`,
		Examples: []string{
			"notesbench bench --reps 5",
			"notesbench bench --writers 1,2,4 --guards note",
			"notesbench bench --format gobench > new.txt && benchstat old.txt new.txt",
			"notesbench bench --target 'stdio:notesbench serve --db f.db' --nemesis kill,lose-replies --reps 1",
		},
		Target: true, Replications: NoReplications, GoBench: true, Faults: true,
		Needs: []contract.Capability{contract.CapRead, contract.CapWrite},
	},
	Default: sim.DefaultBench,
	Params: func(c *sim.Bench) []Param {
		return []Param{
			Int("writes", &c.Writes, "timed writes per writer per repetition").AsPublished(),
			Int("text-size", &c.TextSize, "bytes of text each write sets").AsPublished(),
			Int("reps", &c.Reps, "repetitions of each guard, each on a fresh database").AsPublished(),
			List("writers", &c.Writers, parseWriters, strconv.Itoa, "writer counts: a list such as 1,2,4,8; each writer has its own connection and Note").AsPublished(),
			Int("warmup", &c.Warmup, "untimed writes per writer before the timed ones"),
			EnumList("guards", &c.Guards, contract.Guards, "version guards to time: none, note, tab").
				ServedAs(func(v contract.Variant) string { return string(v.Guard) }),
			Synchronous(&c.Synchronous),
			DB(&c.DBDir),
		}
	},
	Rule: results.Rule[results.BenchRow]{Judge: results.BenchVerdicts},
	Tables: func(rows []results.BenchRow, exp *results.Experiment) []report.MainTable {
		return report.One(report.BenchTable(rows, exp, nil))
	},
	// bench publishes one writer.
	PublishedRow: func(r results.BenchRow) bool { return r.Writers == 1 },
	Complete:     completeBench,
})

// parseWriters parses one writer count.
func parseWriters(s string) (int, error) {
	ws, err := sim.ParseWriters(s)
	if err != nil {
		return 0, err
	}
	return ws[0], nil
}

// benchReport is the JSON form of a bench result: the common report plus the
// tests of the differences between guards.
type benchReport struct {
	results.Report
	Differences []results.GuardDiff `json:"differences"`
}

// completeBench adds bench's own to its outcome: the runs summarized per
// repetition, the tests between guards and their warnings, the Go benchmark
// lines and the per-write samples.
func completeBench(_ sim.Bench, res sim.Result[results.BenchRow, results.BenchRun], parts *report.Parts, o *Findings) {
	summaries := results.SummarizeRuns(res.Runs)
	diffs := results.CompareGuards(res.Runs, results.DefaultAlpha)
	warnings := results.BenchWarnings(res.Runs, diffs, results.DefaultAlpha)
	o.Report.Runs = nonNil(summaries)
	o.Report.Warnings = nonNil(warnings)
	o.JSON = benchReport{Report: o.Report, Differences: nonNil(diffs)}
	o.GoBench = report.BenchGoBench(summaries)
	o.Latency = report.LatencySeriesOf(res.Runs)

	benchParts(parts, res.Rows, summaries, diffs, warnings)
}

// benchParts completes the parts of bench's section: its table with the
// warnings under it, the repetitions and the tests between guards as detail,
// and the published medians and p99s as ratios.
func benchParts(parts *report.Parts, rows []results.BenchRow, summaries []results.BenchRunSummary, diffs []results.GuardDiff, warnings []string) {
	parts.Tables = report.One(report.BenchTable(rows, report.Shown(parts.Comparison), warnings))
	parts.Detail = []report.Table{report.BenchRunsTable(summaries)}
	if len(diffs) > 0 {
		parts.Detail = append(parts.Detail, report.BenchDiffTable(diffs, results.DefaultAlpha))
	}
	parts.DetailRecords = report.BenchDetailRecords(summaries, diffs)
	parts.VerdictTable = report.BenchVerdictTable
}
