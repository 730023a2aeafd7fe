package reproduce

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Options are how a reproduction runs: which experiments, on which clocks,
// with how many replications behind the verdicts.
type Options struct {
	// Experiments are the experiments to run, in order.
	Experiments []experiment.Descriptor
	// Real also runs the experiments of the race engine once on the wall
	// clock, beside the virtual one.
	Real bool
	// Replications is the number of replications behind the verdicts of
	// the race engine's experiments, create and sources; each experiment's
	// Plan scales it (fast takes a tenth, outline twice as many).
	Replications int
	// Target is where the race engine's experiments and bench keep their
	// databases; the others run in memory.
	Target contract.Target
	// Runs are every run's options; their Replications are the plan's. With
	// a Shard, the reproduction runs that shard's units of every step.
	Runs experiment.Options
	// Machine is the machine the reproduction runs on, as the command
	// describes it for the record.
	Machine results.Machine
	// Step, when set, is told of each experiment as it starts.
	Step func(name string)
}

// Reproduced is a reproduction: its record (reproduced.json, with its
// summary), the tables it prints, in order, and the plots it draws.
type Reproduced struct {
	Record results.Reproduction
	Tables []report.Table
	// Latency holds bench's per-write samples, for the latency plot.
	Latency []report.LatencySeries
	// Shard, for one shard of a reproduction, is what it ran: the only
	// thing it holds.
	Shard *results.ReproduceShard
}

// Run runs every experiment of r at its published parameters, each with its
// verdicts, and returns the reproduction with its summary. command is the
// command line to record. With a shard in r.Runs it runs that shard's units
// of every step, and the reproduction is a results.ReproduceShard for
// notesbench merge. Its errors about r are *experiment.ParamError.
func Run(ctx context.Context, r Options, command string) (*Reproduced, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	shard := r.Runs.Shard
	r.Runs.Shard = results.Shard{}
	steps := r.steps()
	rec := &results.ReproduceShard{Experiment: "reproduce", Shard: shard, Rows: []results.ShardStep{}, Command: command, Warnings: []string{}, Version: r.Runs.Version,
		Config: r.Config()}
	offset := 0 // the units of a reproduction are numbered across its steps
	for _, st := range steps {
		if r.Step != nil {
			r.Step(st.name)
		}
		ss := results.ShardStep{Experiment: st.name}
		for _, j := range st.jobs {
			var own func(int) bool // a whole reproduction: every unit
			if base := offset; shard.Count > 0 {
				own = func(u int) bool { return shard.Owns(base + u) }
			}
			if err := j.Execute(ctx, own); err != nil {
				return nil, fmt.Errorf("%s: %w", st.name, err)
			}
			offset += j.Units()
			if shard.Count > 0 {
				parts, err := j.Parts()
				if err != nil {
					return nil, fmt.Errorf("%s: %w", st.name, err)
				}
				ss.Jobs = append(ss.Jobs, parts)
			}
		}
		rec.Rows = append(rec.Rows, ss)
	}
	if shard.Count > 0 {
		rec.Units = offset
		return &Reproduced{Shard: rec}, nil
	}
	return r.compose(steps, command)
}

// Validate checks the options; its errors are *experiment.ParamError.
func (r Options) Validate() error {
	if r.Replications < 1 {
		return &experiment.ParamError{Param: "replications", Err: errors.New("must be at least 1")}
	}
	return (experiment.Options{Replications: r.Replications}).Validate()
}

// Config is the reproduction's parameters, as its record holds them.
func (r Options) Config() results.ReproduceConfig {
	return results.ReproduceConfig{Replications: r.Replications, Real: r.Real, Only: experiment.Names(r.Experiments)}
}

// Command is the command line a reproduction of r records: notesbench
// reproduce with the flags that shape its output, --quick when quick, and
// --only as it was written (only; "" when every experiment runs). The
// reproduction it is set against (--against) is left out: that one
// compares itself, by its own command.
func (r Options) Command(quick bool, only string) string {
	var b strings.Builder
	b.WriteString("notesbench reproduce")
	if quick {
		b.WriteString(" --quick")
	}
	if r.Real {
		b.WriteString(" --clock " + string(sim.ClockReal))
	}
	fmt.Fprintf(&b, " --replications %d", r.Replications)
	if only != "" {
		b.WriteString(" --only " + only)
	}
	return b.String()
}

// step is one experiment of a reproduction: its jobs, and how their results
// make its part.
type step struct {
	name    string
	jobs    []experiment.Job
	compose compose
}

// steps returns the reproduction's steps, in order.
func (r Options) steps() []step {
	var out []step
	for _, d := range r.Experiments {
		jobs, c := r.jobs(d)
		out = append(out, step{name: d.Info().Name, jobs: jobs, compose: c})
	}
	return out
}

// compose assembles every step's jobs, once all their units ran or were
// read back, and builds the reproduction from their results.
func (r Options) compose(steps []step, command string) (*Reproduced, error) {
	out := &Reproduced{Record: results.Reproduction{Experiment: "reproduce", Command: command, Replications: r.Replications, Config: r.Config()}}
	for _, st := range steps {
		var rs []experiment.JobResult
		digests := results.StepDigests{Experiment: st.name}
		for _, j := range st.jobs {
			res, err := j.Assemble()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", st.name, err)
			}
			rs = append(rs, res)
			d, err := j.Digests()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", st.name, err)
			}
			digests.Jobs = append(digests.Jobs, d)
		}
		out.Record.Units = append(out.Record.Units, digests)
		part, err := st.compose(rs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.name, err)
		}
		out.Record.Reports = append(out.Record.Reports, part.reports...)
		if t := part.timing; t != nil {
			if out.Record.Timing == nil {
				fit := sim.TimingPublishedFit
				out.Record.Timing = &results.TimingModels{Profile: fit.Name(), Basis: fit.Basis()}
			}
			out.Record.Timing.Reports = append(out.Record.Timing.Reports, t.reports...)
			out.Record.Timing.Verdicts = append(out.Record.Timing.Verdicts, t.verdicts)
			out.Record.Timing.Ablations = append(out.Record.Timing.Ablations, t.ablation)
		}
		out.Tables = append(out.Tables, part.section.Tables()...)
		out.Latency = append(out.Latency, part.latency...)
	}
	out.Record.Summarize()
	out.Record.Version = r.Runs.Version
	out.Record.Machine = r.Machine
	return out, nil
}

// reproPart is what one experiment adds to a reproduction: its reports and
// tables, for the race engine's experiments their runs under the
// published-fit timing, and for bench its per-write samples.
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

// compose turns the results of a step's jobs, in order, into its part of
// the reproduction.
type compose func(results []experiment.JobResult) (reproPart, error)

// jobs returns the jobs of d's step of the reproduction, at its published
// parameters, and how their results make its part: an experiment of the race
// engine on the virtual clock (and, with Real, once more on the wall clock)
// — under both timing models, with the ablation's replications, when its
// plan says so —, any other once, each with its verdicts.
func (r Options) jobs(d experiment.Descriptor) ([]experiment.Job, compose) {
	if _, clocked := d.New().Clock(); !clocked {
		return r.one(d)
	}
	if d.Info().Reproduce.Timings {
		return r.timings(d)
	}
	return r.clocks(d)
}

// options returns the options of one run of the reproduction.
func (r Options) options(replications int, titleSuffix string) experiment.Options {
	o := r.Runs
	o.Replications, o.TitleSuffix = replications, titleSuffix
	return o
}

// onClock returns d at its published setup on clock k, its editing loop
// edited by edit when it is set.
func onClock(d experiment.Descriptor, k sim.ClockKind, edit func(sim.Editing) sim.Editing) experiment.Instance {
	in := d.New()
	if edit != nil {
		e := in.Editing()
		*e = edit(*e)
	}
	in.SetClock(k)
	return in
}

// one is the step of an experiment that runs on one clock, on the shared
// target or (InMemory) in memory.
func (r Options) one(d experiment.Descriptor) ([]experiment.Job, compose) {
	info := d.Info()
	rt := sim.Runtime{Target: r.Target, Progress: r.Runs.ProgressOf(info.Name)}
	if info.InMemory {
		rt.Target = r.Runs.Memory
	}
	n := 0
	if info.Replications != experiment.NoReplications {
		n = info.Reproduce.Replications(r.Replications)
	}
	return []experiment.Job{d.New().Job(rt, r.options(n, ""))}, func(rs []experiment.JobResult) (reproPart, error) {
		o := rs[0].Findings
		// A reproduction prints the main tables and the verdicts: the detail
		// is the experiment's own command's (bench's repetitions).
		o.Section.Detail = nil
		return reproPart{reports: []results.Report{o.Report}, section: o.Section, latency: o.Latency}, nil
	}
}

// clocks is the step of an experiment of the race engine: on the virtual
// clock with its verdicts and, with Real, once more on the wall clock, its
// table right beside the virtual one, before the verdicts.
func (r Options) clocks(d experiment.Descriptor) ([]experiment.Job, compose) {
	info := d.Info()
	rt := sim.Runtime{Target: r.Target, Progress: r.Runs.ProgressOf(info.Name)}
	jobs := []experiment.Job{onClock(d, sim.ClockVirtual, nil).Job(rt, r.options(info.Reproduce.Replications(r.Replications), ""))}
	if r.Real {
		jobs = append(jobs, onClock(d, sim.ClockReal, nil).Job(rt, r.options(0, " (real clock)")))
	}
	return jobs, func(rs []experiment.JobResult) (reproPart, error) {
		virtual := rs[0].Findings
		if !r.Real {
			return reproPart{reports: []results.Report{virtual.Report}, section: virtual.Section}, nil
		}
		real := rs[1].Findings
		return reproPart{
			reports: []results.Report{virtual.Report, real.Report},
			section: report.Section{Main: slices.Concat(virtual.Section.Main, real.Section.Main), Verdicts: virtual.Section.Verdicts},
		}, nil
	}
}

// timings is the step of an experiment of the race engine under the default
// timing and under published-fit, each with its verdicts (and, with Real,
// once more on the wall clock), and the replications of the profile's rules
// alone for the ablation. Its tables: ours under each model, then the
// verdicts of both side by side and the ablation.
func (r Options) timings(d experiment.Descriptor) ([]experiment.Job, compose) {
	name := d.Info().Name
	profiles := []sim.TimingModel{sim.TimingDefault, sim.TimingPublishedFit}
	var jobs []experiment.Job
	for _, p := range profiles {
		timed := func(ed sim.Editing) sim.Editing { return ed.WithTiming(p) }
		suffix, realSuffix := "", " (real clock)"
		if p != sim.TimingDefault {
			suffix, realSuffix = " (timing "+p.Name()+")", " (timing "+p.Name()+", real clock)"
		}
		rt := sim.Runtime{Target: r.Target, Progress: r.Runs.ProgressOf(name + " " + p.Name())}
		jobs = append(jobs, onClock(d, sim.ClockVirtual, timed).Job(rt, r.options(r.Replications, suffix)))
		if r.Real {
			jobs = append(jobs, onClock(d, sim.ClockReal, timed).Job(rt, r.options(0, realSuffix)))
		}
	}
	perProfile := len(jobs) / len(profiles)
	// The ablation replicates each rule alone; a whole profile's verdicts
	// are those of its runs above.
	ablation := map[string]int{} // ingredient → its job
	for _, ing := range ingredients() {
		if ing.Edit == nil {
			continue
		}
		ablation[ing.Name] = len(jobs)
		opts := experiment.Options{Replications: r.Replications, Memory: r.Runs.Memory, Progress: r.Runs.Progress}
		jobs = append(jobs, onClock(d, sim.ClockVirtual, ing.Edit).ReplicationsJob(opts))
	}
	return jobs, func(rs []experiment.JobResult) (reproPart, error) {
		var part reproPart
		var virtuals, reals []report.Table
		verdicts := map[sim.TimingModel][]results.Verdict{}
		for i, p := range profiles {
			virtual := rs[i*perProfile].Findings
			verdicts[p] = virtual.Report.Verdicts
			reps := []results.Report{virtual.Report}
			virtuals = append(virtuals, virtual.Section.Main...)
			if r.Real {
				real := rs[i*perProfile+1].Findings
				reps = append(reps, real.Report)
				reals = append(reals, real.Section.Main...)
			}
			if p == sim.TimingDefault {
				part.reports = reps
			} else {
				part.timing = &timingPart{reports: reps}
			}
		}
		var models []results.AblationModel
		var lists [][]results.Verdict
		for _, ing := range ingredients() {
			v := verdicts[ing.Profile]
			if j, ok := ablation[ing.Name]; ok {
				v = rs[j].Verdicts
			}
			models = append(models, results.AblationModel{Name: ing.Name, Replications: r.Replications})
			lists = append(lists, v)
		}
		var err error
		fit := sim.TimingPublishedFit
		if part.timing.verdicts, err = results.NewAblation(name,
			[]results.AblationModel{{Name: sim.TimingDefault.Name(), Replications: r.Replications}, {Name: fit.Name(), Replications: r.Replications}},
			[][]results.Verdict{verdicts[sim.TimingDefault], verdicts[fit]}); err != nil {
			return part, err
		}
		if part.timing.ablation, err = results.NewAblation(name, models, lists); err != nil {
			return part, err
		}
		label := fmt.Sprintf("%s: %s", fit.Name(), fit.Basis())
		part.section = report.Section{
			Main: slices.Concat(virtuals, reals),
			Verdicts: []report.Table{
				report.TimingVerdictTable(fmt.Sprintf("Verdicts under both timing models: published figures against %d replications of each", r.Replications),
					part.timing.verdicts, results.DefaultMass,
					"default: each editor pauses for a draw from its own think range (read from the published wall time), sleeps as drawn",
					label+"; pause U(0, the editor's think maximum), every pause and think lengthened by min(d/4, 5ms)"),
				report.AblationTable(fmt.Sprintf("Ablation of the %s timing: which ingredient moves which figure (%d replications each)", fit.Name(), r.Replications),
					part.timing.ablation, results.DefaultMass, label),
			},
		}
		return part, nil
	}
}

// Merge puts the shards of a reproduction (in data, one file
// each, named by files) together into the reproduction they make: the same
// record and tables as the reproduction run whole. ds are the experiments
// it may hold; the command the first shard recorded is recorded as the
// command that made it, machine as the machine it ran on (Options.Machine).
func Merge(ds []experiment.Descriptor, files []string, data [][]byte, version string, machine results.Machine) (*Reproduced, error) {
	recs, err := results.ReadReproduceShards(files, data)
	if err != nil {
		return nil, err
	}
	shards := make([]results.Shard, len(recs))
	for i, rec := range recs {
		shards[i] = rec.Shard
	}
	first := recs[0]
	r := Options{Replications: first.Config.Replications, Real: first.Config.Real, Runs: experiment.Options{Version: version}, Machine: machine}
	for _, name := range first.Config.Only {
		d, err := experiment.Lookup(ds, name)
		if err != nil {
			return nil, results.MergeErrorf(files[0], "%v", err)
		}
		r.Experiments = append(r.Experiments, d)
	}
	steps := r.steps()
	offset := 0
	for si, st := range steps {
		for ji, j := range st.jobs {
			parts := make([][]results.Part, len(recs))
			for fi, rec := range recs {
				if si >= len(rec.Rows) || ji >= len(rec.Rows[si].Jobs) {
					return nil, results.MergeErrorf(files[fi], "holds no job %d of %s: not a shard of this reproduction", ji+1, st.name)
				}
				parts[fi] = rec.Rows[si].Jobs[ji]
			}
			all, err := results.CollectParts(files, shards, parts, offset, j.Units())
			if err != nil {
				var me *results.MergeError
				errors.As(err, &me)
				return nil, &results.MergeError{File: me.File, Err: fmt.Errorf("%s: %w", st.name, me.Err)}
			}
			if err := j.Read(all); err != nil {
				return nil, &results.MergeError{Err: fmt.Errorf("%s: %v", st.name, err)}
			}
			offset += j.Units()
		}
	}
	if offset != first.Units {
		return nil, results.MergeErrorf(files[0], "%d units, where its parameters make %d", first.Units, offset)
	}
	return r.compose(steps, first.Command)
}
