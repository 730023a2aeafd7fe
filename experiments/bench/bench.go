// Package bench is the bench experiment (what the version check costs per
// write (edit_note_tab latency per guard)): its configuration and run, its
// rows, its tables and its descriptor, Experiment, which experiments.All
// registers.
package bench

import (
	"slices"
	"strconv"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Experiment is the bench experiment: what the version check costs per write.
var Experiment = experiment.Define(experiment.Def[Config, Row, Run]{
	Info: experiment.Info{
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
		Target: true, Replications: experiment.NoReplications, GoBench: true, Faults: true,
		Needs: []contract.Capability{contract.CapRead, contract.CapWrite},
	},
	Default: Default,
	Params: func(c *Config) []experiment.Param {
		return []experiment.Param{
			experiment.Int("writes", &c.Writes, "timed writes per writer per repetition").AsPublished(),
			experiment.Int("text-size", &c.TextSize, "bytes of text each write sets").AsPublished(),
			experiment.Int("reps", &c.Reps, "repetitions of each guard, each on a fresh database").AsPublished(),
			experiment.List("writers", &c.Writers, parseWriters, strconv.Itoa, "writer counts: a list such as 1,2,4,8; each writer has its own connection and Note").AsPublished(),
			experiment.Int("warmup", &c.Warmup, "untimed writes per writer before the timed ones"),
			experiment.EnumList("guards", &c.Guards, contract.Guards, "version guards to time: none, note, tab").
				ServedAs(func(v contract.Variant) string { return string(v.Guard) }),
			experiment.Synchronous(&c.Synchronous),
			experiment.DB(&c.DBDir),
		}
	},
	Rule: results.Rule[Row]{Judge: Verdicts},
	Tables: func(rows []Row, exp *results.Experiment) []report.MainTable {
		return report.One(Table(rows, exp, nil))
	},
	// bench publishes one writer.
	PublishedRow: func(r Row) bool { return r.Writers == 1 },
	Complete:     completeBench,
})

// parseWriters parses one writer count.
func parseWriters(s string) (int, error) {
	ws, err := ParseWriters(s)
	if err != nil {
		return 0, err
	}
	return ws[0], nil
}

// benchReport is the JSON form of a bench result: the common report plus the
// tests of the differences between guards.
type benchReport struct {
	results.Report
	Differences []GuardDiff `json:"differences"`
}

// completeBench adds bench's own to its outcome: the runs summarized per
// repetition, the tests between guards and their warnings (after the
// report's own, such as a run stopped by its error limit), the Go benchmark
// lines and the per-write samples.
func completeBench(_ Config, res sim.Result[Row, Run], parts *report.Parts, o *experiment.Findings) {
	summaries := SummarizeRuns(res.Runs)
	diffs := CompareGuards(res.Runs, DefaultAlpha)
	warnings := Warnings(res.Runs, diffs, DefaultAlpha)
	o.Report.Runs = experiment.NonNil(summaries)
	o.Report.Warnings = append(slices.Clip(o.Report.Warnings), warnings...)
	o.JSON = benchReport{Report: o.Report, Differences: experiment.NonNil(diffs)}
	o.GoBench = GoBench(summaries)
	o.Latency = LatencySeriesOf(res.Runs)

	AddParts(parts, res.Rows, summaries, diffs, warnings)
}

// AddParts completes the parts of bench's section: its table with the
// warnings under it, the repetitions and the tests between guards as detail,
// and the published medians and p99s as ratios.
func AddParts(parts *report.Parts, rows []Row, summaries []RunSummary, diffs []GuardDiff, warnings []string) {
	parts.Tables = report.One(Table(rows, report.Shown(parts.Comparison), warnings))
	parts.Detail = []report.Table{RunsTable(summaries)}
	if len(diffs) > 0 {
		parts.Detail = append(parts.Detail, DiffTable(diffs, DefaultAlpha))
	}
	parts.DetailRecords = DetailRecords(summaries, diffs)
	parts.VerdictTable = VerdictTable
}
