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

// reproduceClocks runs an experiment of the race engine on the virtual clock
// with verdicts and, with --clock real, once more on the wall clock: its table
// goes right beside the virtual one, before the verdicts.
func reproduceClocks[Row results.Row, Run any](ctx context.Context, s reproSettings, at func(sim.ClockKind) sim.Experiment[Row, Run], replications int) (reproPart, error) {
	virtual, err := runOutcome(ctx, s.app, at(sim.ClockVirtual), replications, "")
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
			return reproduceClocks(ctx, s, func(clock sim.ClockKind) sim.Experiment[results.RaceRow, results.RaceRun] {
				cfg := sim.DefaultRace()
				cfg.Clock, cfg.Target, cfg.Progress = clock, s.target, progress(s.app, "race")
				return cfg
			}, s.replications)
		}},
		{"tabs", func(ctx context.Context, s reproSettings) (reproPart, error) {
			return reproduceClocks(ctx, s, func(clock sim.ClockKind) sim.Experiment[results.TabsRow, results.RaceRun] {
				cfg := sim.DefaultTabs()
				cfg.Clock, cfg.Target, cfg.Progress = clock, s.target, progress(s.app, "tabs")
				return cfg
			}, s.replications)
		}},
		{"fast", func(ctx context.Context, s reproSettings) (reproPart, error) {
			// A fast replication is 20,000 edits per format, and with no think
			// time every seed gives the virtual clock the same counts: a tenth.
			return reproduceClocks(ctx, s, func(clock sim.ClockKind) sim.Experiment[results.FastRow, results.RaceRun] {
				cfg := sim.DefaultFast()
				cfg.Clock, cfg.Target, cfg.Progress = clock, s.target, progress(s.app, "fast")
				return cfg
			}, max(1, s.replications/10))
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
				s.latency.series = latencySeries(runs)
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
		Args: cobra.NoArgs,
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

// reproduced is the JSON file reproduce writes: every report and the summary.
type reproduced struct {
	Command      string           `json:"command"`
	Replications int              `json:"replications"`
	Consistent   int              `json:"consistent"`
	Judged       int              `json:"judged"`
	Machine      machineFacts     `json:"machine"`
	Reports      []results.Report `json:"reports"`
	Version      string           `json:"notesbench_version"`
}

// machineFacts describes where a reproduction ran.
type machineFacts struct {
	GOOS           string `json:"goos"`
	GOARCH         string `json:"goarch"`
	CPUs           int    `json:"cpus"`
	CPU            string `json:"cpu,omitempty"`
	Go             string `json:"go"`
	SQLite         string `json:"sqlite"`
	SQLiteDriver   string `json:"sqlite_driver"`
	PublishedSetup string `json:"published_setup"`
}

func runReproduce(ctx context.Context, o *reproduceOptions) error {
	a := o.app
	s, format, steps, err := o.settings()
	if err != nil {
		return err
	}
	s.latency = &latencyKeeper{}
	if s.target, err = backend.Open(backend.Spec{}); err != nil {
		return err
	}
	defer s.target.Close()
	var all reproduced
	all.Replications = s.replications
	all.Command = "notesbench reproduce" + reproduceArgs(o)
	var tables []report.Table
	var verdicts []results.Verdict
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
			verdicts = append(verdicts, part.reports[i].Verdicts...)
		}
		all.Reports = append(all.Reports, part.reports...)
		tables = append(tables, part.section.Tables()...)
	}
	if a.stderrTTY {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	all.Consistent, all.Judged = results.Summary(verdicts)
	all.Version = notesbenchVersion()
	if all.Machine, err = readMachine(ctx); err != nil {
		return err
	}
	summary := fmt.Sprintf("%d of %d published figures consistent with ours (central 99 %% range; timings compared as ratios only)", all.Consistent, all.Judged)
	if format == report.FormatJSON {
		err = report.WriteJSON(a.stdout, all)
	} else {
		err = report.Render(a.stdout, format, tables...)
		if err == nil {
			_, err = fmt.Fprintln(a.stdout, "\n"+summary)
		}
	}
	if err != nil || o.out == "" {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(o.out, "reproduced.json"), 0o644, func(w io.Writer) error {
		return report.WriteJSON(w, all)
	}); err != nil {
		return err
	}
	plots, err := writePlots(o.out, all.Reports, s.latency.series)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(o.out, "REPRODUCED.md"), 0o644, func(w io.Writer) error {
		return writeReproducedMD(w, all, tables, summary, plots)
	})
}

// plotRef is one plot written for REPRODUCED.md: its title and file (SVG).
type plotRef struct{ title, file string }

// writePlots writes, into dir/plots, a histogram of our replications for every
// judged figure that varies, with the published value marked, and the per-write
// latency of bench, each as SVG and PNG, each file whole or not at all.
func writePlots(dir string, reports []results.Report, latency []report.LatencySeries) ([]plotRef, error) {
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		return nil, err
	}
	var refs []plotRef
	save := func(name, title string, draw func(w io.Writer, format string) error) error {
		for _, format := range report.PlotFormats {
			file := filepath.Join("plots", name+"."+format)
			if err := atomicfile.Write(filepath.Join(dir, file), 0o644, func(w io.Writer) error { return draw(w, format) }); err != nil {
				return fmt.Errorf("plot %s: %w", file, err)
			}
		}
		refs = append(refs, plotRef{title: title, file: filepath.Join("plots", name+".svg")})
		return nil
	}
	for _, rep := range reports {
		for _, v := range rep.Verdicts {
			if !report.Plottable(v) {
				continue
			}
			title := fmt.Sprintf("%s · %s · %s", rep.Experiment, v.Row, v.Figure)
			if v.Seed > 0 {
				title += fmt.Sprintf(" (published seed %d)", v.Seed)
			}
			name := slug(rep.Experiment + "-" + v.Row + "-" + v.Figure + seedSuffix(v.Seed))
			if err := save(name, title, func(w io.Writer, format string) error {
				return report.VerdictPlot(w, format, title, v, results.DefaultMass)
			}); err != nil {
				return nil, err
			}
		}
	}
	if len(latency) > 0 {
		title := "bench · µs per edit_note_tab write, by guard"
		if err := save("bench-latency", title, func(w io.Writer, format string) error {
			return report.LatencyPlot(w, format, title, latency)
		}); err != nil {
			return nil, err
		}
	}
	return refs, nil
}

func seedSuffix(seed int) string {
	if seed == 0 {
		return ""
	}
	return fmt.Sprintf("-seed%d", seed)
}

// slug turns a title into a file name: lower case letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// latencySeries pools bench's per-write samples by guard, single writer.
func latencySeries(runs []results.BenchRun) []report.LatencySeries {
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

func readMachine(ctx context.Context) (machineFacts, error) {
	m := machineFacts{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version(),
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
	return m, nil
}

// writeReproducedMD writes the markdown report: how it was made, the summary,
// then every table.
func writeReproducedMD(w io.Writer, all reproduced, tables []report.Table, summary string, plots []plotRef) error {
	m := all.Machine
	head := fmt.Sprintf(`# notesbench: the published figures, reproduced

Made by `+"`%s`"+` (notesbench %s) with %d replications behind the verdicts.
Machine: %s/%s, %d CPUs%s; %s; SQLite %s through %s.
The race, tabs and fast tables below ran on the virtual clock, so their counts are the
same on any machine; the published figures came from %s.

**%s.**

`, all.Command, all.Version, all.Replications, m.GOOS, m.GOARCH, m.CPUs, cpuSuffix(m.CPU), m.Go, m.SQLite, m.SQLiteDriver,
		m.PublishedSetup, strings.ToUpper(summary[:1])+summary[1:])
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	if len(plots) > 0 {
		if _, err := io.WriteString(w, "## Plots\n\nOur replications of each judged figure, the published value in red and our central 99 % range dashed; then bench's per-write latency.\n\n"); err != nil {
			return err
		}
		for _, p := range plots {
			if _, err := fmt.Fprintf(w, "![%s](%s)\n\n", p.title, filepath.ToSlash(p.file)); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "## Tables\n\n"); err != nil {
			return err
		}
	}
	return report.Render(w, report.FormatMarkdown, tables...)
}

func cpuSuffix(cpu string) string {
	if cpu == "" {
		return ""
	}
	return " (" + cpu + ")"
}
