package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// reproduceOptions holds the reproduce command's flags.
type reproduceOptions struct {
	app          *app
	quick        bool
	clock        string
	replications int
	out          string
	format       string
	only         string
}

// reproSettings is what every step of reproduce gets.
type reproSettings struct {
	app     *app
	real    bool
	latency *latencyKeeper
	// target is where the race experiments and bench keep their databases.
	target contract.Target
	// replications is the number of replications behind the verdicts of the
	// race-engine experiments; the costly fast experiment and the cheap outline
	// scale it (see replicationsFor).
	replications int
}

// reproStep runs one experiment at its published parameters.
type reproStep struct {
	name string
	run  func(ctx context.Context, s reproSettings) (reproPart, error)
}

// reproPart is what one step adds to the reproduction: its reports and its
// tables.
type reproPart struct {
	reports []results.Report
	section report.Section
}

// latencyKeeper receives bench's raw per-write samples, for the latency plot.
type latencyKeeper struct{ series []report.LatencySeries }

// reproduceOne runs exp with its verdicts as a step of the reproduction.
func reproduceOne[Row results.Row, Run any](ctx context.Context, s reproSettings, exp sim.Experiment[Row, Run], replications int) (reproPart, error) {
	o, err := runOutcome(ctx, s.app, exp, replications, "")
	if err != nil {
		return reproPart{}, err
	}
	return reproPart{reports: []results.Report{o.report}, section: o.section}, nil
}

// clocked is an experiment of the race engine, which runs on either clock.
type clocked[Row results.Row, Run any] interface {
	Name() string
	OnClock(k sim.ClockKind, target contract.Target, progress func(done, total int)) sim.Experiment[Row, Run]
}

// reproduceClocks runs an experiment of the race engine on the virtual clock
// with replications/divisor replications behind its verdicts and, with --clock
// real, once more on the wall clock: its table goes right beside the virtual
// one, before the verdicts.
func reproduceClocks[Row results.Row, Run any](ctx context.Context, s reproSettings, exp clocked[Row, Run], divisor int) (reproPart, error) {
	at := func(k sim.ClockKind) sim.Experiment[Row, Run] {
		return exp.OnClock(k, s.target, progress(s.app, exp.Name()))
	}
	virtual, err := runOutcome(ctx, s.app, at(sim.ClockVirtual), max(1, s.replications/divisor), "")
	if err != nil || !s.real {
		return reproPart{reports: []results.Report{virtual.report}, section: virtual.section}, err
	}
	real, err := runOutcome(ctx, s.app, at(sim.ClockReal), 0, " (real clock)")
	if err != nil {
		return reproPart{}, err
	}
	return reproPart{
		reports: []results.Report{virtual.report, real.report},
		section: report.Section{Main: slices.Concat(virtual.section.Main, real.section.Main), Verdicts: virtual.section.Verdicts},
	}, nil
}

func reproSteps() []reproStep {
	return []reproStep{
		{"race", func(ctx context.Context, s reproSettings) (reproPart, error) {
			return reproduceClocks[results.RaceRow, results.RaceRun](ctx, s, sim.DefaultRace(), 1)
		}},
		{"tabs", func(ctx context.Context, s reproSettings) (reproPart, error) {
			return reproduceClocks[results.TabsRow, results.RaceRun](ctx, s, sim.DefaultTabs(), 1)
		}},
		{"fast", func(ctx context.Context, s reproSettings) (reproPart, error) {
			// A fast replication is 20,000 edits per format, and with no think
			// time every seed gives the virtual clock the same counts: a tenth.
			return reproduceClocks[results.FastRow, results.RaceRun](ctx, s, sim.DefaultFast(), 10)
		}},
		{"create", func(ctx context.Context, s reproSettings) (reproPart, error) {
			cfg := sim.DefaultCreate()
			cfg.Target = backend.Memory()
			return reproduceOne(ctx, s, cfg, s.replications)
		}},
		{"sources", func(ctx context.Context, s reproSettings) (reproPart, error) {
			cfg := sim.DefaultSources()
			cfg.Target = backend.Memory()
			return reproduceOne(ctx, s, cfg, s.replications)
		}},
		{"refs", func(ctx context.Context, s reproSettings) (reproPart, error) {
			cfg := sim.DefaultRefs()
			cfg.Target = backend.Memory()
			return reproduceOne(ctx, s, cfg, 0)
		}},
		{"outline", func(ctx context.Context, s reproSettings) (reproPart, error) {
			cfg := sim.DefaultOutline()
			cfg.Target = backend.Memory()
			return reproduceOne(ctx, s, cfg, 2*s.replications)
		}},
		{"validate", func(ctx context.Context, s reproSettings) (reproPart, error) {
			return reproduceOne(ctx, s, sim.DefaultValidation(), 0)
		}},
		{"bench", func(ctx context.Context, s reproSettings) (reproPart, error) {
			cfg := sim.DefaultBench()
			cfg.Target, cfg.Progress = s.target, progress(s.app, "bench")
			rep, section, runs, err := benchResult(ctx, cfg)
			if err != nil {
				return reproPart{}, err
			}
			if s.latency != nil {
				s.latency.series = report.LatencySeriesOf(runs)
			}
			// Only the guard table and the ratios: per-repetition detail is bench's own.
			section.Detail = nil
			return reproPart{reports: []results.Report{rep.Report}, section: section}, nil
		}},
	}
}

func newReproduceCmd(a *app, runF func(context.Context, *reproduceOptions) error) *cobra.Command {
	opts := &reproduceOptions{app: a}
	cmd := &cobra.Command{
		Use:   "reproduce",
		Short: "Run every experiment at its published parameters and judge every published figure",
		Long: `reproduce runs every experiment at the parameters of its published table and prints
each table with the published figures beside ours, then a verdict per figure and one
summary line. The race-engine experiments run on the virtual clock, so the output is
the same on any machine; --clock real also runs them once on the wall clock, beside.
With --out DIR it writes REPRODUCED.md and reproduced.json there, each whole or not
at all.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.quick && !cmd.Flags().Changed("replications") {
				opts.replications = 20
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runReproduce(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&opts.quick, "quick", false, "a fast pass: 20 replications instead of 100")
	fs.StringVar(&opts.clock, "clock", "virtual", "virtual, or real to also run the race experiments once on the wall clock")
	fs.IntVar(&opts.replications, "replications", 100, "replications behind the verdicts (20 with --quick unless given)")
	fs.StringVar(&opts.out, "out", "", "write REPRODUCED.md and reproduced.json into this folder")
	fs.StringVar(&opts.format, "format", "", "output format: table, markdown or json (default table on a terminal, markdown otherwise)")
	fs.StringVar(&opts.only, "only", "", "run only these experiments, comma-separated")
	return cmd
}

func (o *reproduceOptions) settings() (reproSettings, report.Format, []reproStep, error) {
	s := reproSettings{app: o.app, replications: o.replications}
	if o.replications < 1 {
		return s, "", nil, usagef("--replications", "must be at least 1")
	}
	clock, err := sim.ParseClock(o.clock)
	if err != nil {
		return s, "", nil, usageErr("--clock", err)
	}
	s.real = clock == sim.ClockReal
	out := outFlags{format: o.format}
	format, err := out.check(o.app, "reproduce")
	if err != nil {
		return s, "", nil, err
	}
	if format == report.FormatCSV {
		return s, "", nil, usagef("--format", "reproduce prints table, markdown or json")
	}
	steps := reproSteps()
	if o.only != "" {
		var keep []reproStep
		for _, name := range strings.Split(o.only, ",") {
			found := false
			for _, st := range steps {
				if st.name == strings.TrimSpace(name) {
					keep, found = append(keep, st), true
				}
			}
			if !found {
				return s, "", nil, usagef("--only", "unknown experiment %q", name)
			}
		}
		steps = keep
	}
	if o.out != "" {
		if err := checkFolder(o.out); err != nil {
			return s, "", nil, usageErr("--out", err)
		}
	}
	return s, format, steps, nil
}

// checkFolder makes sure reproduce can write its files into dir without
// creating anything yet: dir is a writable folder, or does not exist and its
// parent is one.
func checkFolder(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s is a file, not a folder", dir)
	case err == nil:
		return checkWritable(filepath.Join(dir, "reproduced.json"))
	case !os.IsNotExist(err):
		return err
	}
	parent, err := os.Stat(filepath.Dir(dir))
	if err != nil || !parent.IsDir() {
		return fmt.Errorf("cannot create %s: %s is not a folder", dir, filepath.Dir(dir))
	}
	return checkWritable(filepath.Join(filepath.Dir(dir), ".notesbench-probe"))
}

func runReproduce(ctx context.Context, o *reproduceOptions) error {
	a := o.app
	s, format, steps, err := o.settings()
	if err != nil {
		return err
	}
	s.latency = &latencyKeeper{}
	if s.target, err = backend.Open(ctx, backend.Spec{}); err != nil {
		return err
	}
	defer s.target.Close()
	all := results.Reproduction{Command: "notesbench reproduce" + reproduceArgs(o), Replications: s.replications}
	var tables []report.Table
	for _, st := range steps {
		if a.stderrTTY {
			fmt.Fprintf(a.stderr, "\rreproduce: %s…\033[K", st.name)
		}
		part, err := st.run(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		for i := range part.reports {
			part.reports[i].Version = notesbenchVersion()
		}
		all.Reports = append(all.Reports, part.reports...)
		tables = append(tables, part.section.Tables()...)
	}
	if a.stderrTTY {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	all.Summarize()
	all.Version = notesbenchVersion()
	all.Machine = readMachine()
	if format == report.FormatJSON {
		err = report.WriteJSON(a.stdout, all)
	} else {
		err = report.Render(a.stdout, format, tables...)
		if err == nil {
			_, err = fmt.Fprintln(a.stdout, "\n"+all.Summary())
		}
	}
	if err != nil || o.out == "" {
		return err
	}
	return writeReproduction(o.out, all, tables, report.ReproductionPlots(all.Reports, s.latency.series))
}

// writeReproduction writes reproduced.json, the plots (SVG and PNG) and
// REPRODUCED.md into dir, each file whole or not at all.
func writeReproduction(dir string, all results.Reproduction, tables []report.Table, plots []report.Plot) error {
	const plotDir = "plots"
	if err := os.MkdirAll(filepath.Join(dir, plotDir), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "reproduced.json"), 0o644, func(w io.Writer) error {
		return report.WriteJSON(w, all)
	}); err != nil {
		return err
	}
	for _, p := range plots {
		for _, format := range report.PlotFormats {
			file := filepath.Join(dir, plotDir, p.Name+"."+format)
			if err := atomicfile.Write(file, 0o644, func(w io.Writer) error { return p.Draw(w, format) }); err != nil {
				return fmt.Errorf("plot %s: %w", file, err)
			}
		}
	}
	return atomicfile.Write(filepath.Join(dir, "REPRODUCED.md"), 0o644, func(w io.Writer) error {
		return report.WriteReproducedMD(w, all, tables, plots, plotDir)
	})
}

// reproduceArgs writes the flags that shape the output, for the record.
func reproduceArgs(o *reproduceOptions) string {
	var b strings.Builder
	if o.quick {
		b.WriteString(" --quick")
	}
	if o.clock != "virtual" {
		b.WriteString(" --clock " + o.clock)
	}
	fmt.Fprintf(&b, " --replications %d", o.replications)
	if o.only != "" {
		b.WriteString(" --only " + o.only)
	}
	return b.String()
}

// readMachine describes the machine a reproduction runs on.
func readMachine() results.Machine {
	m := results.Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version(),
		SQLiteDriver:   backend.EngineDriver,
		PublishedSetup: "Python 3.9.6 rebuilds on Apple silicon, real clock"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	m.SQLite = backend.EngineVersion()
	return m
}
