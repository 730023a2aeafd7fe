package main

import (
	"context"
	"encoding/json"
	"errors"
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
	onlySet      bool // --only was given, perhaps empty
	// against names another reproduction's reproduced.json whose verdicts
	// these are compared with; other holds it, read before anything runs.
	against string
	other   *results.Reproduction
}

// reproSettings is what every step of reproduce gets.
type reproSettings struct {
	app  *app
	real bool
	// target is where the race experiments and bench keep their databases.
	target contract.Target
	// replications is the number of replications behind the verdicts of the
	// race-engine experiments, create and sources; the costly fast experiment
	// takes a tenth and the cheap outline twice as many (see reproSteps).
	replications int
}

// reproStep runs one experiment at its published parameters.
type reproStep struct {
	name string
	run  func(ctx context.Context, s reproSettings) (reproPart, error)
}

// reproPart is what one step adds to the reproduction: its reports and its
// tables, for the race engine's experiments their runs under the
// published-fit timing, and for bench its per-write samples, for the latency
// plot.
type reproPart struct {
	reports []results.Report
	section report.Section
	timing  *timingPart
	latency []report.LatencySeries
}

// timingPart is one experiment under the published-fit timing: its reports,
// the verdicts of both models side by side, and the ablation.
type timingPart struct {
	reports  []results.Report
	verdicts results.Ablation
	ablation results.Ablation
}

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
	if err != nil {
		return reproPart{}, err
	}
	if !s.real {
		return reproPart{reports: []results.Report{virtual.report}, section: virtual.section}, nil
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

// editable is an experiment of the race engine whose editing loop the caller
// sets: the published setup with the editing loop edit makes of its own.
type editable[Row results.Row, Run any] func(edit func(sim.Editing) sim.Editing) clocked[Row, Run]

// reproduceTimings runs an experiment of the race engine under the default
// timing and under published-fit, each with its verdicts (and, with --clock
// real, once more on the wall clock), then replicates the profile's rules
// alone for the ablation. Its tables: ours under each model, then the
// verdicts of both side by side and the ablation.
func reproduceTimings[Row results.Row, Run any](ctx context.Context, s reproSettings, exp editable[Row, Run]) (reproPart, error) {
	var part reproPart
	var virtuals, reals []report.Table
	verdicts := map[sim.Profile][]results.Verdict{}
	name := ""
	for _, p := range []sim.Profile{sim.ProfileDefault, sim.ProfilePublishedFit} {
		e := exp(func(ed sim.Editing) sim.Editing { return ed.WithProfile(p) })
		name = e.Name()
		suffix, realSuffix := "", " (real clock)"
		if p != sim.ProfileDefault {
			suffix, realSuffix = " (timing "+p.Name()+")", " (timing "+p.Name()+", real clock)"
		}
		at := func(k sim.ClockKind) sim.Experiment[Row, Run] {
			return e.OnClock(k, s.target, progress(s.app, name+" "+p.Name()))
		}
		virtual, err := runOutcome(ctx, s.app, at(sim.ClockVirtual), s.replications, suffix)
		if err != nil {
			return part, err
		}
		verdicts[p] = virtual.report.Verdicts
		reps := []results.Report{virtual.report}
		virtuals = append(virtuals, virtual.section.Main...)
		if s.real {
			real, err := runOutcome(ctx, s.app, at(sim.ClockReal), 0, realSuffix)
			if err != nil {
				return part, err
			}
			reps = append(reps, real.report)
			reals = append(reals, real.section.Main...)
		}
		if p == sim.ProfileDefault {
			part.reports = reps
		} else {
			part.timing = &timingPart{reports: reps}
		}
	}

	var models []results.AblationModel
	var lists [][]results.Verdict
	for _, ing := range sim.Ingredients() {
		v, ok := verdicts[ing.Profile]
		if !ing.Whole || !ok {
			e := exp(ing.Edit)
			replica, _ := e.OnClock(sim.ClockVirtual, s.target, nil).Replica(backend.Memory())
			reps, err := sim.Replicate(ctx, replica, s.replications, max(1, len(replica.SeedList())), progress(s.app, name+" "+ing.Name))
			if err != nil {
				return part, err
			}
			// The ablation judges rules that depart from both profiles
			// against the published figures on purpose: no differences.
			v = results.Compare(name, nil, []Row(nil), &reps).Verdicts
		}
		models = append(models, results.AblationModel{Name: ing.Name, Replications: s.replications})
		lists = append(lists, v)
	}
	var err error
	fit := sim.ProfilePublishedFit
	if part.timing.verdicts, err = results.NewAblation(name,
		[]results.AblationModel{{Name: sim.ProfileDefault.Name(), Replications: s.replications}, {Name: fit.Name(), Replications: s.replications}},
		[][]results.Verdict{verdicts[sim.ProfileDefault], verdicts[fit]}); err != nil {
		return part, err
	}
	if part.timing.ablation, err = results.NewAblation(name, models, lists); err != nil {
		return part, err
	}
	label := fmt.Sprintf("%s: %s", fit.Name(), fit.Basis())
	part.section = report.Section{
		Main: slices.Concat(virtuals, reals),
		Verdicts: []report.Table{
			report.TimingVerdictTable(fmt.Sprintf("Verdicts under both timing models: published figures against %d replications of each", s.replications),
				part.timing.verdicts, results.DefaultMass,
				"default: each editor pauses for a draw from its own think range (read from the published wall time), sleeps as drawn",
				label+"; pause U(0, the editor's think maximum), every pause and think lengthened by min(d/4, 5ms)"),
			report.AblationTable(fmt.Sprintf("Ablation of the %s timing: which ingredient moves which figure (%d replications each)", fit.Name(), s.replications),
				part.timing.ablation, results.DefaultMass, label),
		},
	}
	return part, nil
}

func reproSteps() []reproStep {
	return []reproStep{
		{"race", func(ctx context.Context, s reproSettings) (reproPart, error) {
			return reproduceTimings(ctx, s, func(edit func(sim.Editing) sim.Editing) clocked[results.RaceRow, results.RaceRun] {
				r := sim.DefaultRace()
				r.Editing = edit(r.Editing)
				return r
			})
		}},
		{"tabs", func(ctx context.Context, s reproSettings) (reproPart, error) {
			return reproduceTimings(ctx, s, func(edit func(sim.Editing) sim.Editing) clocked[results.TabsRow, results.RaceRun] {
				t := sim.DefaultTabs()
				t.Editing = edit(t.Editing)
				return t
			})
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
			out, err := benchResult(ctx, cfg)
			if err != nil {
				return reproPart{}, err
			}
			// Only the guard table and the ratios: per-repetition detail is bench's own.
			out.section.Detail = nil
			return reproPart{reports: []results.Report{out.report.Report}, section: out.section, latency: report.LatencySeriesOf(out.runs)}, nil
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
			opts.onlySet = cmd.Flags().Changed("only")
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
	fs.StringVar(&opts.against, "against", "", "compare the verdicts with those of another reproduction's reproduced.json (one made with --quick, say) and list the figures judged apart")
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
	format, err := outputFormat(o.app, o.format, false)
	if err != nil {
		return s, "", nil, err
	}
	if format == report.FormatCSV {
		return s, "", nil, usagef("--format", "reproduce prints table, markdown or json")
	}
	steps := reproSteps()
	if o.onlySet {
		if steps, err = onlySteps(steps, o.only); err != nil {
			return s, "", nil, err
		}
	}
	if o.out != "" {
		if err := checkFolder(o.out); err != nil {
			return s, "", nil, usageErr("--out", err)
		}
	}
	if o.against != "" {
		other, err := readReproduction(o.against)
		if err != nil {
			return s, "", nil, usageErr("--against", err)
		}
		o.other = &other
	}
	return s, format, steps, nil
}

// readReproduction reads a reproduced.json that notesbench reproduce wrote.
func readReproduction(path string) (results.Reproduction, error) {
	var r results.Reproduction
	b, err := readResult(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	if r.Command == "" || r.Version == "" {
		return r, fmt.Errorf("%s is no reproduced.json of notesbench reproduce", path)
	}
	return r, nil
}

// onlySteps keeps the steps --only names, in the order named: an empty list,
// an empty item, a name listed twice or an unknown one is bad usage.
func onlySteps(steps []reproStep, only string) ([]reproStep, error) {
	if strings.TrimSpace(only) == "" {
		return nil, usagef("--only", "no experiments named (want some of %s)", strings.Join(stepNames(steps), ", "))
	}
	names, err := parseList("--only", only, func(name string) (string, error) {
		if name == "" {
			return "", errors.New("an empty name in the list")
		}
		for _, st := range steps {
			if st.name == name {
				return name, nil
			}
		}
		return "", fmt.Errorf("unknown experiment %q (want some of %s)", name, strings.Join(stepNames(steps), ", "))
	})
	if err != nil {
		return nil, err
	}
	var keep []reproStep
	for _, name := range names {
		for _, st := range steps {
			if st.name == name {
				keep = append(keep, st)
			}
		}
	}
	return keep, nil
}

// stepNames returns the names of steps, in order.
func stepNames(steps []reproStep) []string {
	names := make([]string, len(steps))
	for i, st := range steps {
		names[i] = st.name
	}
	return names
}

// checkFolder makes sure reproduce can write its files into dir without
// creating anything yet: dir is a writable folder, or does not exist and its
// parent is one. An existing folder must hold no Go source: a package is no
// place for a report of some hundred files. Every file
// reproduce writes there must be missing or one notesbench wrote.
func checkFolder(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s is a file, not a folder", dir)
	case err == nil:
		return checkReproductionFolder(dir)
	case !os.IsNotExist(err):
		return err
	}
	parent, err := os.Stat(filepath.Dir(dir))
	if err != nil || !parent.IsDir() {
		return fmt.Errorf("cannot create %s: %s is not a folder", dir, filepath.Dir(dir))
	}
	return probeFolder(filepath.Dir(dir))
}

// Files reproduce writes into its folder: checkReproductionFolder checks
// them, writeReproduction writes them.
const (
	reproducedJSON = "reproduced.json"
	reproducedMD   = "REPRODUCED.md"
	reproducedPlot = "plots"
)

// checkReproductionFolder checks an existing --out folder; see checkFolder.
func checkReproductionFolder(dir string) error {
	jsonPath, mdPath := filepath.Join(dir, reproducedJSON), filepath.Join(dir, reproducedMD)
	if err := checkResultWritable(jsonPath); err != nil {
		return err
	}
	if st, err := os.Stat(mdPath); err == nil {
		if err := regular(mdPath, st); err != nil {
			return err
		}
		if !isReproducedMD(mdPath) {
			return fmt.Errorf("%s exists and was not written by notesbench reproduce; remove it or name another folder", mdPath)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && (strings.HasSuffix(name, ".go") || name == "go.mod") {
			return fmt.Errorf("%s holds Go source (%s): name a folder of its own for the reproduction", dir, name)
		}
	}
	plots := filepath.Join(dir, reproducedPlot)
	if st, err := os.Stat(plots); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is not a folder", plots)
		}
		if files, _ := os.ReadDir(plots); len(files) > 0 && !isResultFile(jsonPath) {
			return fmt.Errorf("%s holds files, and %s no reproduction of notesbench's; name another folder", plots, dir)
		}
	}
	return nil
}

// isReproducedMD reports whether path starts with report.ReproducedTitle.
func isReproducedMD(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(report.ReproducedTitle)+1)
	n, _ := io.ReadFull(f, head)
	return strings.TrimRight(string(head[:n]), "\r\n") == report.ReproducedTitle
}

func runReproduce(ctx context.Context, o *reproduceOptions) error {
	a := o.app
	s, format, steps, err := o.settings()
	if err != nil {
		return err
	}
	if s.target, err = backend.Open(ctx, backend.Spec{}); err != nil {
		return err
	}
	defer s.target.Close()
	all := results.Reproduction{Command: "notesbench reproduce" + reproduceArgs(o), Replications: s.replications}
	var tables []report.Table
	var latency []report.LatencySeries
	for _, st := range steps {
		if a.stderrTTY {
			fmt.Fprintf(a.stderr, "\rreproduce: %s…\033[K", st.name)
		}
		part, err := st.run(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		all.Reports = append(all.Reports, part.reports...)
		if t := part.timing; t != nil {
			if all.Timing == nil {
				fit := sim.ProfilePublishedFit
				all.Timing = &results.TimingModels{Profile: fit.Name(), Basis: fit.Basis()}
			}
			all.Timing.Reports = append(all.Timing.Reports, t.reports...)
			all.Timing.Verdicts = append(all.Timing.Verdicts, t.verdicts)
			all.Timing.Ablations = append(all.Timing.Ablations, t.ablation)
		}
		tables = append(tables, part.section.Tables()...)
		latency = append(latency, part.latency...)
	}
	if a.stderrTTY {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	all.Summarize()
	all.Version = notesbenchVersion()
	all.Machine = readMachine()
	if o.other != nil {
		agreement := results.NewAgreement(all, *o.other)
		all.Against = &agreement
		ours, theirs := "this run", "the other run"
		if all.Replications != o.other.Replications {
			ours, theirs = report.Count(all.Replications, "replication"), report.Count(o.other.Replications, "replication")
		}
		tables = append(tables, report.AgreementTable(agreement, ours, theirs))
	}
	if format == report.FormatJSON {
		err = report.WriteJSON(a.stdout, all)
	} else {
		err = report.RenderWidth(a.stdout, format, a.width, tables...)
		if err == nil {
			_, err = fmt.Fprintln(a.stdout, "\n"+all.Summary())
		}
		if err == nil && all.Timing != nil {
			_, err = fmt.Fprintln(a.stdout, strings.ToUpper(all.Timing.Summary()[:1])+all.Timing.Summary()[1:])
		}
		if err == nil && all.Against != nil {
			_, err = fmt.Fprintln(a.stdout, report.AgreementLine(*all.Against)+".")
		}
	}
	if err != nil || o.out == "" {
		return err
	}
	return writeReproduction(o.out, all, tables, report.ReproductionPlots(all.Reports, latency))
}

// writeReproduction writes reproduced.json, the plots (SVG and PNG) and
// REPRODUCED.md into dir, each file whole or not at all.
func writeReproduction(dir string, all results.Reproduction, tables []report.Table, plots []report.Plot) error {
	if err := os.MkdirAll(filepath.Join(dir, reproducedPlot), 0o755); err != nil {
		return err
	}
	if err := writeResult(filepath.Join(dir, reproducedJSON), all); err != nil {
		return err
	}
	for _, p := range plots {
		for _, format := range report.PlotFormats {
			file := filepath.Join(dir, reproducedPlot, p.Name+"."+format)
			if err := atomicfile.Write(file, 0o644, func(w io.Writer) error { return p.Draw(w, format) }); err != nil {
				return fmt.Errorf("plot %s: %w", file, err)
			}
		}
	}
	return atomicfile.Write(filepath.Join(dir, reproducedMD), 0o644, func(w io.Writer) error {
		return report.WriteReproducedMD(w, all, tables, plots, reproducedPlot)
	})
}

// reproduceArgs writes the flags that shape the output, for the record; the
// reproduction --against names compares itself, by its own command.
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
