package main

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// benchOptions holds the bench command's flags.
type benchOptions struct {
	app         *app
	format      string
	out         string
	db          string
	writes      int
	reps        int
	warmup      int
	textSize    int
	guards      string
	writers     string
	synchronous string
	target      targetFlags
	flags       *pflag.FlagSet
}

func newBenchCmd(a *app, runF func(context.Context, *benchOptions) error) *cobra.Command {
	opts := &benchOptions{app: a}
	def := sim.DefaultBench()
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "What the version check costs per write (edit_note_tab latency per guard)",
		Long: `bench times sequential edit_note_tab replace_text writes through the store's
normal write path, on a file database in WAL mode, per version guard: median,
p90, p99, p99.9 and max per write in µs and writes per second, per repetition
and pooled, and tests the difference between guards (Mann–Whitney U over the
per-repetition medians and over every write, α = 0.05). With --writers 1,2,4
each count of writers runs at once, each on its own connection and Note.
The defaults are the published setup; timings depend on the machine, so the
published figures are compared as ratios. --format gobench prints Go benchmark
lines for benchstat.`,
		Args: noArgs,
		RunE: runner(opts, runF, runBench),
	}
	fs := cmd.Flags()
	opts.flags = fs
	fs.StringVar(&opts.format, "format", "", "output format: table, markdown, csv, json or gobench (default table on a terminal, markdown otherwise)")
	fs.StringVar(&opts.out, "out", "", "also write the JSON result to this file (written whole or not at all)")
	fs.StringVar(&opts.db, "db", "", "keep each run's SQLite database in this folder (default: a temporary folder, removed)")
	fs.IntVar(&opts.writes, "writes", def.Writes, "timed writes per writer per repetition")
	fs.IntVar(&opts.reps, "reps", def.Reps, "repetitions of each guard, each on a fresh database")
	fs.IntVar(&opts.warmup, "warmup", def.Warmup, "untimed writes per writer before the timed ones")
	fs.IntVar(&opts.textSize, "text-size", def.TextSize, "bytes of text each write sets")
	fs.StringVar(&opts.guards, "guards", "none,note,tab", "version guards to time: none, note, tab")
	fs.StringVar(&opts.writers, "writers", "1", "writer counts: a list such as 1,2,4,8; each writer has its own connection and Note")
	fs.StringVar(&opts.synchronous, "synchronous", def.Synchronous, "SQLite synchronous setting: normal or full")
	opts.target.register(fs)
	return cmd
}

// config turns the flags into a bench configuration, with usage errors that
// name the flag. It opens the target the flags name: o.target.close releases
// it, also after an error.
func (o *benchOptions) config(ctx context.Context) (sim.Bench, error) {
	cfg := sim.Bench{Writes: o.writes, Reps: o.reps, Warmup: o.warmup, TextSize: o.textSize, DBDir: o.db, Synchronous: o.synchronous}
	var err error
	if cfg.Writers, err = sim.ParseWriters(o.writers); err != nil {
		return cfg, usageErr("--writers", err)
	}
	if o.db != "" {
		if err := checkDBFolder(o.db); err != nil {
			return cfg, usageErr("--db", err)
		}
	}
	if cfg.Target, err = o.target.open(ctx, backend.Spec{DBDir: o.db, Synchronous: o.synchronous}); err != nil {
		return cfg, err
	}
	guards, err := servedDefault(o.flags, cfg.Target, "guards", o.guards, func(v contract.Variant) string { return string(v.Guard) })
	if err != nil {
		return cfg, err
	}
	if cfg.Guards, err = sim.ParseGuards(guards); err != nil {
		return cfg, usageErr("--guards", err)
	}
	if o.target.remote() {
		cfg.TargetName = o.target.target
	}
	cfg.Store = o.target.storeName
	cfg.Peer = backend.Peer(cfg.Target)
	cfg.Progress = progress(o.app, "bench")
	return cfg, flagError(o.flags, cfg.Validate())
}

// checkFormat validates --format and --out before anything runs.
func (o *benchOptions) checkFormat() (report.Format, error) {
	f, err := outputFormat(o.app, o.format, true)
	if err != nil {
		return "", err
	}
	return f, checkResultFile("--out", o.out)
}

// benchReport is the JSON form of a bench result: the common report plus the
// tests of the differences between guards.
type benchReport struct {
	results.Report
	Differences []results.GuardDiff `json:"differences"`
}

func runBench(ctx context.Context, o *benchOptions) error {
	format, err := o.checkFormat()
	if err != nil {
		return err
	}
	defer o.target.close(o.app)
	cfg, err := o.config(ctx)
	if err != nil {
		return err
	}
	out, err := benchResult(ctx, cfg)
	if err != nil {
		return err
	}
	if format == report.FormatGoBench {
		err = report.WriteGoBench(o.app.stdout, report.BenchGoBench(out.summaries)...)
	} else {
		err = printResult(o.app, format, out.report, out.section)
	}
	if err != nil {
		return err
	}
	return writeResult(o.out, out.report)
}

// benchOutcome is one benchmark run through: its report (the JSON form), the
// section that prints it, and its runs, raw and summarized.
type benchOutcome struct {
	report    benchReport
	section   report.Section
	runs      []results.BenchRun
	summaries []results.BenchRunSummary
}

// benchResult runs the benchmark and returns its outcome.
func benchResult(ctx context.Context, cfg sim.Bench) (benchOutcome, error) {
	res, err := cfg.Run(ctx, nil)
	if err != nil {
		return benchOutcome{}, err
	}
	summaries := results.SummarizeRuns(res.Runs)
	diffs := results.CompareGuards(res.Runs, results.DefaultAlpha)
	warnings := results.BenchWarnings(res.Runs, diffs, results.DefaultAlpha)
	cmp := results.Compare(cfg.Name(), cfg.Differences(), res.Rows, nil)
	rep := benchReport{
		Report: results.Report{Experiment: cfg.Name(), Config: cfg, Rows: nonNilRows(res.Rows), Runs: nonNilRows(summaries),
			Published: cmp.Published, Verdicts: cmp.Verdicts, Warnings: warnings, Version: notesbenchVersion()}.Complete(),
		Differences: nonNilRows(diffs),
	}
	section := report.BenchSection(report.Outcome{Experiment: cfg.Name(), Rows: res.Rows, Setup: cfg.Describe(), Comparison: cmp},
		summaries, diffs, warnings)
	return benchOutcome{report: rep, section: section, runs: res.Runs, summaries: summaries}, nil
}
