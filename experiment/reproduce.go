package experiment

import (
	"context"
	"fmt"
	"slices"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Reproduce is how a reproduction runs: which experiments, on which clocks,
// with how many replications behind the verdicts.
type Reproduce struct {
	// Experiments are the experiments to run, in order.
	Experiments []Descriptor
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
	// Options are every run's options; their Replications are the plan's.
	Options Options
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
}

// Run runs every experiment of r at its published parameters, each with its
// verdicts, and returns the reproduction with its summary. command is the
// command line to record.
func (r Reproduce) Run(ctx context.Context, command string) (*Reproduced, error) {
	if r.Replications < 1 {
		return nil, paramErrf("replications", "must be at least 1")
	}
	if err := (Options{Replications: r.Replications}).Validate(); err != nil {
		return nil, err
	}
	out := &Reproduced{Record: results.Reproduction{Experiment: "reproduce", Command: command, Replications: r.Replications,
		Config: results.ReproduceConfig{Replications: r.Replications, Real: r.Real, Only: Names(r.Experiments)}}}
	s := reproSettings{Reproduce: r}
	for _, d := range r.Experiments {
		name := d.Info().Name
		if r.Step != nil {
			r.Step(name)
		}
		part, err := d.reproduce(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out.Record.Reports = append(out.Record.Reports, part.reports...)
		if t := part.timing; t != nil {
			if out.Record.Timing == nil {
				fit := sim.ProfilePublishedFit
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
	out.Record.Version = r.Options.Version
	return out, nil
}

// reproSettings is what every step of a reproduction gets.
type reproSettings struct {
	Reproduce
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

// replications returns the replications the plan gives an experiment when
// a reproduction runs n.
func (p Plan[C]) replications(n int) int {
	mul, div := max(p.Mul, 1), max(p.Div, 1)
	return max(1, n*mul/div)
}

// reproduce runs the experiment at its published parameters as a step of a
// reproduction: an experiment of the race engine on the virtual clock (and,
// with Real, once more on the wall clock) — under both timing models when its
// plan says so —, any other once, each with its verdicts.
func (d *descriptor[C, Row, Run]) reproduce(ctx context.Context, s reproSettings) (reproPart, error) {
	c := d.def.Default()
	if _, clocked := sim.Clocked(c); !clocked {
		return d.reproduceOne(ctx, s, c)
	}
	if d.def.Reproduce.Timings {
		return d.reproduceTimings(ctx, s)
	}
	return d.reproduceClocks(ctx, s, c)
}

// options returns the options of one run of a reproduction.
func (s reproSettings) options(replications int, titleSuffix string) Options {
	o := s.Options
	o.Replications, o.TitleSuffix = replications, titleSuffix
	return o
}

// reproduceOne runs an experiment that runs on one clock, on the shared
// target or (InMemory) in memory.
func (d *descriptor[C, Row, Run]) reproduceOne(ctx context.Context, s reproSettings, c C) (reproPart, error) {
	target := s.Target
	if d.def.InMemory {
		target = memoryTarget()
	}
	if rt := sim.RuntimeOf(&c); rt != nil {
		rt.Target, rt.Progress = target, s.Options.progress(d.def.Name)
	}
	if d.def.Prepare != nil {
		d.def.Prepare(&c)
	}
	n := 0
	if d.def.Rule.Replicated() {
		n = d.def.Reproduce.replications(s.Replications)
	}
	o, err := d.run(ctx, c, s.options(n, ""))
	if err != nil {
		return reproPart{}, err
	}
	// A reproduction prints the main tables and the verdicts: the detail is
	// the experiment's own command's (bench's repetitions).
	o.Section.Detail = nil
	return reproPart{reports: []results.Report{o.Report}, section: o.Section, latency: o.Latency}, nil
}

// reproduceClocks runs an experiment of the race engine on the virtual clock
// with its verdicts and, with Real, once more on the wall clock: its table
// goes right beside the virtual one, before the verdicts.
func (d *descriptor[C, Row, Run]) reproduceClocks(ctx context.Context, s reproSettings, c C) (reproPart, error) {
	at := func(k sim.ClockKind) C { return sim.OnClock(c, k, s.Target, s.Options.progress(d.def.Name)) }
	virtual, err := d.run(ctx, at(sim.ClockVirtual), s.options(d.def.Reproduce.replications(s.Replications), ""))
	if err != nil {
		return reproPart{}, err
	}
	if !s.Real {
		return reproPart{reports: []results.Report{virtual.Report}, section: virtual.Section}, nil
	}
	real, err := d.run(ctx, at(sim.ClockReal), s.options(0, " (real clock)"))
	if err != nil {
		return reproPart{}, err
	}
	return reproPart{
		reports: []results.Report{virtual.Report, real.Report},
		section: report.Section{Main: slices.Concat(virtual.Section.Main, real.Section.Main), Verdicts: virtual.Section.Verdicts},
	}, nil
}

// reproduceTimings runs an experiment of the race engine under the default
// timing and under published-fit, each with its verdicts (and, with Real,
// once more on the wall clock), then replicates the profile's rules alone
// for the ablation. Its tables: ours under each model, then the verdicts of
// both side by side and the ablation.
func (d *descriptor[C, Row, Run]) reproduceTimings(ctx context.Context, s reproSettings) (reproPart, error) {
	name := d.def.Name
	edited := func(edit func(sim.Editing) sim.Editing) C {
		c := d.def.Default()
		e := d.def.Reproduce.Editing(&c)
		*e = edit(*e)
		return c
	}
	var part reproPart
	var virtuals, reals []report.Table
	verdicts := map[sim.Profile][]results.Verdict{}
	for _, p := range []sim.Profile{sim.ProfileDefault, sim.ProfilePublishedFit} {
		c := edited(func(ed sim.Editing) sim.Editing { return ed.WithProfile(p) })
		suffix, realSuffix := "", " (real clock)"
		if p != sim.ProfileDefault {
			suffix, realSuffix = " (timing "+p.Name()+")", " (timing "+p.Name()+", real clock)"
		}
		at := func(k sim.ClockKind) C { return sim.OnClock(c, k, s.Target, s.Options.progress(name+" "+p.Name())) }
		virtual, err := d.run(ctx, at(sim.ClockVirtual), s.options(s.Replications, suffix))
		if err != nil {
			return part, err
		}
		verdicts[p] = virtual.Report.Verdicts
		reps := []results.Report{virtual.Report}
		virtuals = append(virtuals, virtual.Section.Main...)
		if s.Real {
			real, err := d.run(ctx, at(sim.ClockReal), s.options(0, realSuffix))
			if err != nil {
				return part, err
			}
			reps = append(reps, real.Report)
			reals = append(reals, real.Section.Main...)
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
			replica := sim.Replica(sim.OnClock(edited(ing.Edit), sim.ClockVirtual, s.Target, nil), memoryTarget())
			reps, err := sim.Replicate(ctx, replica, s.Replications, max(1, len(replica.SeedList())), s.Options.progress(name+" "+ing.Name))
			if err != nil {
				return part, err
			}
			// The ablation judges rules that depart from both profiles
			// against the published figures on purpose: no differences.
			v = results.Compare(d.pub, d.def.Rule, nil, []Row(nil), &reps).Verdicts
		}
		models = append(models, results.AblationModel{Name: ing.Name, Replications: s.Replications})
		lists = append(lists, v)
	}
	var err error
	fit := sim.ProfilePublishedFit
	if part.timing.verdicts, err = results.NewAblation(name,
		[]results.AblationModel{{Name: sim.ProfileDefault.Name(), Replications: s.Replications}, {Name: fit.Name(), Replications: s.Replications}},
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
			report.TimingVerdictTable(fmt.Sprintf("Verdicts under both timing models: published figures against %d replications of each", s.Replications),
				part.timing.verdicts, results.DefaultMass,
				"default: each editor pauses for a draw from its own think range (read from the published wall time), sleeps as drawn",
				label+"; pause U(0, the editor's think maximum), every pause and think lengthened by min(d/4, 5ms)"),
			report.AblationTable(fmt.Sprintf("Ablation of the %s timing: which ingredient moves which figure (%d replications each)", fit.Name(), s.Replications),
				part.timing.ablation, results.DefaultMass, label),
		},
	}
	return part, nil
}
