package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Info is what a command shows of an experiment, and which of the flags
// every experiment shares it takes.
type Info struct {
	// Name is the experiment's name, as the command and published.json
	// call it.
	Name string
	// Short, Long and Examples are the command's help.
	Short, Long string
	Examples    []string
	// Target: the runs go to a contract target the user may choose
	// (--store, --keep, --target, --note).
	Target bool
	// InMemory: embedded runs go to in-memory databases.
	InMemory bool
	// History: the runs can be recorded for notesbench check (--history).
	History bool
	// Faults: the runs take faults between notesbench and a server
	// (--nemesis), and count what they bring.
	Faults bool
	// Replications is the default number of replications behind the
	// verdicts (--replications); NoReplications for an experiment judged
	// without any.
	Replications int
	// Baseline: a result can be compared with a stored one (--baseline);
	// bench's timings cannot.
	Baseline bool
	// GoBench: the experiment prints Go benchmark lines (--format gobench).
	GoBench bool
	// Needs are the operations the runs call beyond opening a run on a fresh
	// Note: a target that lacks one is refused before anything runs
	// (contract.Capable).
	Needs []contract.Capability
	// Reproduce is how a reproduction runs the experiment.
	Reproduce Plan
}

// Plan is how a reproduction runs an experiment at its published parameters.
type Plan struct {
	// Mul and Div scale the reproduction's replications for the experiment:
	// Mul·n/Div, at least 1 (fast: a tenth; outline: twice). A Mul of 0
	// leaves the default of 1.
	Mul, Div int
	// Timings runs it under both timing models, with the ablation of the
	// inferred one (race, tabs): its Instance has an editing loop.
	Timings bool
}

// Replications returns the replications the plan gives an experiment when
// a reproduction runs n.
func (p Plan) Replications(n int) int {
	mul, div := max(p.Mul, 1), max(p.Div, 1)
	return max(1, n*mul/div)
}

// NoReplications is Info.Replications of an experiment judged without
// replications.
const NoReplications = -1

// A Descriptor is one experiment, declared once: its name and help, its
// parameters with their published defaults and bounds, how its rows are
// judged and tabled, and how a reproduction runs it (Info.Reproduce).
// Every command, the completion, the pipeline and the reproduction read it;
// nothing else names an experiment.
type Descriptor interface {
	// Info returns what a command shows of the experiment.
	Info() Info
	// New returns the experiment at its published setup, its parameters
	// bound to its configuration.
	New() Instance
	// merge puts shards of a run of the experiment together.
	merge(s *results.Shards, version string) (*Findings, error)
}

// An Instance is one experiment being configured and run. Its parameters
// are bound to its configuration: setting one sets the configuration.
type Instance interface {
	// Info returns its descriptor's Info.
	Info() Info
	// Params returns its parameters, in the order Differences lists them.
	Params() []Param
	// Finish completes the configuration once every parameter given is
	// set: given reports whether a parameter was. Its errors are
	// *ParamError.
	Finish(given func(name string) bool) error
	// Clock returns the clock the runs use, for an experiment that runs
	// on either; SetClock sets it (an experiment on one clock keeps its
	// own).
	Clock() (sim.ClockKind, bool)
	SetClock(k sim.ClockKind)
	// Editing returns the configuration's editing loop, to edit in place
	// (the timing models of a reproduction), or nil for an experiment with
	// none (Info.Reproduce.Timings says it has one).
	Editing() *sim.Editing
	// Use sets what the runs go to and report to (rt, passed to every run)
	// and what the configuration records of it (s), and takes from a server
	// the rows it serves: a parameter with Served that was not given gets
	// the server's value, and one a server leaves unsaid must be given.
	// Its errors are *ParamError.
	Use(s sim.TargetSettings, rt sim.Runtime, given func(name string) bool) error
	// Validate checks the configuration, and that the target Use set can
	// run it; a field a parameter sets is reported as that parameter
	// (*ParamError).
	Validate() error
	// Config returns the configuration, whose JSON form is the record of
	// what ran.
	Config() any
	// Storage returns where its embedded runs keep their databases, as its
	// parameters set it.
	Storage() Storage
	// Run runs the experiment and its verdicts: the whole job, or with a
	// shard in opts that shard's units alone, against the target Use set,
	// once the configuration and opts validate.
	Run(ctx context.Context, opts Options) (*Findings, error)
	// Job returns the job of a run of the configuration as it stands
	// against rt, with opts (but their Shard and Start, which Run reads):
	// for a caller that says itself which units run where, as a
	// reproduction does across its steps. Its result is Findings.
	Job(rt sim.Runtime, opts Options) Job
	// ReplicationsJob returns the job of the configuration's replications
	// alone, opts.Replications of them on opts.Memory, judged with no
	// differences (the timing ablation's rules depart from the published
	// setup on purpose). Its result is Verdicts.
	ReplicationsJob(opts Options) Job
	// configuration returns a pointer to the configuration, for Configure.
	configuration() any
}

// Options are how a run of an experiment is judged and shown.
type Options struct {
	// Replications is how many replications of the published setup stand
	// behind the verdicts (0: none).
	Replications int
	// Memory is where the replications run, an in-memory target the command
	// picks (each run on a fresh database); in a reproduction, the
	// experiments that run in memory (Info.InMemory) run on it too. It is
	// needed only when replications run.
	Memory contract.Target
	// Progress, when set, returns the progress callback of one part of the
	// work ("race replications").
	Progress func(what string) func(done, total int)
	// Version is notesbench's version, for the record.
	Version string
	// TitleSuffix is added to the titles of the main tables.
	TitleSuffix string
	// Shard, when its Count is above 0, runs one shard of the work, whose
	// result notesbench merge combines with the others', reading the
	// configuration back from its record.
	Shard results.Shard
	// Start, when not zero, is when the runs start, once everything is
	// ready: a barrier for processes on several hosts (see ParseStart).
	Start time.Time
}

// MaxReplications bounds Options.Replications: each replication is a full
// run of the published setup.
const MaxReplications = 10_000

// Validate checks the options; its errors are *ParamError.
func (o Options) Validate() error {
	if o.Replications < 0 {
		return paramErrf("replications", "must be 0 or more")
	}
	if err := field.AtMost("replications", o.Replications, MaxReplications, "each replication is a full run of the published setup"); err != nil {
		var fe *field.Error
		errors.As(err, &fe)
		return paramErr("replications", fe.Err)
	}
	return nil
}

// ProgressOf returns the progress callback of one part of the work, nil
// when there is no Progress.
func (o Options) ProgressOf(what string) func(done, total int) {
	if o.Progress == nil {
		return nil
	}
	return o.Progress(what)
}

// Findings is one experiment run through: its result as JSON records it,
// the section that prints it, and what the commands check or draw of it.
type Findings struct {
	// Report is the result; JSON is what --format json and --out write:
	// the Report, or the Report with what the experiment adds (bench's
	// tests between guards).
	Report  results.Report
	JSON    any
	Section report.Section
	// Rows are our rows, and Invariants what must hold of them on any
	// clock, for a real-clock baseline check.
	Rows       []results.Row
	Invariants []results.Invariant
	// Latency holds bench's per-write samples, for the latency plot.
	Latency []report.LatencySeries
	// GoBench holds Go benchmark lines (bench).
	GoBench []report.Benchmark
	// Ended says, for each run that ended before it was done (its calls
	// ended in server errors as often as its limit allows), why; the
	// command fails once it has written what the runs measured (Failure).
	Ended []string
	// RealClock says the runs were on the wall clock: a baseline checks
	// them by their invariants and ranges, not by exact counts.
	RealClock bool
}

// Failure is the error of a run some of whose runs ended before they were
// done (Ended), returned once what they measured is written: the first
// reason, and how many more runs ended so; nil when none did.
func (f *Findings) Failure() error {
	switch len(f.Ended) {
	case 0:
		return nil
	case 1:
		return errors.New(f.Ended[0])
	}
	return fmt.Errorf("%s (and %s)", f.Ended[0], plural.Count(len(f.Ended)-1, "more run"))
}

// Def is how an experiment is declared: a value of it, passed to Define, is
// the experiment's descriptor. C is its configuration (race.Config, …), Row and
// Run its row and run types.
type Def[C sim.Runner[Row, Run], Row results.Row, Run any] struct {
	Info
	// Default returns the published setup.
	Default func() C
	// Params returns the parameters of c, bound to it.
	Params func(c *C) []Param
	// Published returns the published setup c is compared with, when it is
	// not Default's (race under a timing profile: the profile's rules).
	Published func(c C) C
	// Finish completes c once its parameters are set; given reports whether
	// one was.
	Finish func(c *C, given func(name string) bool) error
	// Serve adapts c to the variant a server says it serves, beside the
	// parameters with Served (race takes its version format).
	Serve func(c *C, v contract.Variant)

	// Rule judges the rows against the published figures.
	Rule results.Rule[Row]
	// Invariants must hold of the rows on any clock.
	Invariants []results.Invariant
	// Tables builds the main tables from our rows, with the published
	// figures of exp beside them when exp is set.
	Tables func(rows []Row, exp *results.Experiment) []report.MainTable
	// Notes go under the first main table.
	Notes []string
	// VerdictTitle, when set, titles the verdict table.
	VerdictTitle func(cmp results.Comparison) string
	// PublishedRow, when set, says which rows a published row may stand
	// beside (bench publishes one writer).
	PublishedRow func(row Row) bool
	// Complete, when set, completes an outcome and the parts of its section
	// with what the experiment adds of its own (bench: its repetitions,
	// tests between guards, Go benchmark lines).
	Complete func(c C, res sim.Result[Row, Run], parts *report.Parts, o *Findings)
	// Editing, when set, reaches c's editing loop (race, tabs).
	Editing func(c *C) *sim.Editing
	// Replica, when set, narrows the configuration of a verdict replication
	// further than the engine does (sim.Replica): fast leaves out the rows
	// no published figure stands for.
	Replica func(c C) C
}

// descriptor is a Def made a Descriptor.
type descriptor[C sim.Runner[Row, Run], Row results.Row, Run any] struct {
	def Def[C, Row, Run]
	pub *results.Experiment
}

// Define returns the descriptor d declares. It panics on a declaration that
// cannot work (no name, no default, no tables; replications for a rule that
// judges without them, or none for one that needs them; timings without an
// editing loop), a bug of the declaration.
func Define[C sim.Runner[Row, Run], Row results.Row, Run any](d Def[C, Row, Run]) Descriptor {
	if d.Name == "" || d.Default == nil || d.Params == nil || d.Tables == nil {
		panic("experiment: a Def needs a name, a default, parameters and tables")
	}
	if (d.Replications == NoReplications) == d.Rule.Replicated() {
		panic("experiment: " + d.Name + ": Info.Replications is NoReplications exactly when its rule judges without replications")
	}
	if d.Reproduce.Timings && d.Editing == nil {
		panic("experiment: " + d.Name + ": a Plan with Timings needs the Def's Editing")
	}
	pub, _ := results.Lookup(d.Name)
	return &descriptor[C, Row, Run]{def: d, pub: pub}
}

func (d *descriptor[C, Row, Run]) Info() Info { return d.def.Info }

func (d *descriptor[C, Row, Run]) New() Instance {
	in := &instance[C, Row, Run]{d: d, cfg: d.def.Default()}
	in.params = d.def.Params(&in.cfg)
	return in
}

// instance is an Instance of a descriptor: its configuration, and what its
// runs go to and report to.
type instance[C sim.Runner[Row, Run], Row results.Row, Run any] struct {
	d      *descriptor[C, Row, Run]
	cfg    C
	rt     sim.Runtime
	params []Param
}

func (in *instance[C, Row, Run]) Info() Info      { return in.d.def.Info }
func (in *instance[C, Row, Run]) Params() []Param { return in.params }
func (in *instance[C, Row, Run]) Config() any     { return in.cfg }

func (in *instance[C, Row, Run]) configuration() any { return &in.cfg }

func (in *instance[C, Row, Run]) Storage() Storage {
	var s Storage
	for _, p := range in.params {
		if p.store != nil {
			p.store(&s)
		}
	}
	return s
}

func (in *instance[C, Row, Run]) Clock() (sim.ClockKind, bool) { return sim.Clocked(in.cfg) }
func (in *instance[C, Row, Run]) SetClock(k sim.ClockKind)     { in.cfg = sim.OnClock(in.cfg, k) }

func (in *instance[C, Row, Run]) Editing() *sim.Editing {
	if in.d.def.Editing == nil {
		return nil
	}
	return in.d.def.Editing(&in.cfg)
}

func (in *instance[C, Row, Run]) Job(rt sim.Runtime, opts Options) Job {
	opts.Shard, opts.Start = results.Shard{}, time.Time{}
	return in.d.newJob(in.cfg, rt, opts)
}

func (in *instance[C, Row, Run]) ReplicationsJob(opts Options) Job {
	return in.d.replicasJob(in.cfg, opts)
}

func (in *instance[C, Row, Run]) Finish(given func(string) bool) error {
	if in.d.def.Finish == nil {
		return nil
	}
	return in.d.def.Finish(&in.cfg, given)
}

func (in *instance[C, Row, Run]) Use(s sim.TargetSettings, rt sim.Runtime, given func(string) bool) error {
	in.cfg, in.rt = sim.WithTarget(in.cfg, s), rt
	if s, ok := rt.Target.(contract.Served); ok {
		v, known := s.Served()
		for _, p := range in.params {
			if p.Served == nil || given(p.Name) {
				continue
			}
			if !known {
				return paramErrf(p.Name, "%s does not say what it serves: name it (the rows are labelled as you name them)", rt.Target.Describe())
			}
			if err := p.Set(p.Served(v)); err != nil {
				return paramErr(p.Name, err)
			}
		}
		if known && in.d.def.Serve != nil {
			in.d.def.Serve(&in.cfg, v)
		}
	}
	return nil
}

func (in *instance[C, Row, Run]) Validate() error { return in.asParam(in.cfg.Validate(in.rt.Target)) }

// asParam reports a field error about a field a parameter sets as that
// parameter's error; other errors pass unchanged.
func (in *instance[C, Row, Run]) asParam(err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err
	}
	for _, p := range in.params {
		if p.field() == fe.Field {
			return paramErr(p.Name, fe.Err)
		}
	}
	return err
}

// Differences lists how c, run against target, departs from the published
// setup: how its runs depart (Departures), then each published parameter
// whose value differs from the published one, as "edits 50 (published 100)".
func (d *descriptor[C, Row, Run]) differences(c C, target contract.Target) []string {
	def := d.def.Default()
	if d.def.Published != nil {
		def = d.def.Published(c)
	}
	out := c.Departures(target)
	ours, theirs := d.def.Params(&c), d.def.Params(&def)
	for i, p := range ours {
		if p.Published {
			out = append(out, results.Differ(p.label(), p.String(), theirs[i].String()))
		}
	}
	return out
}

func (in *instance[C, Row, Run]) Run(ctx context.Context, opts Options) (*Findings, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := waitUntil(ctx, opts.Start); err != nil {
		return nil, err
	}
	return in.d.run(ctx, in.cfg, in.rt, opts)
}

// run runs c against rt as one job, its units all here, or with a shard in
// opts that shard's units alone (see runShard), and, when its parameters are
// the published ones and the rule judges against replications, the
// virtual-clock replications behind its verdicts.
func (d *descriptor[C, Row, Run]) run(ctx context.Context, c C, rt sim.Runtime, opts Options) (*Findings, error) {
	shard := opts.Shard
	opts.Shard = results.Shard{}
	j := d.newJob(c, rt, opts)
	if shard.Count > 0 {
		return d.runShard(ctx, j, shard)
	}
	res, err := runWhole(ctx, j)
	return res.Findings, err
}

// replication returns the replications behind the verdicts of c run against
// target — how many, of how many seeds each, and the configuration they run
// (on opts.Memory) — and false when c's verdicts rest on none: its
// parameters are not the published ones, its rule judges its rows alone, or
// none were asked for.
func (d *descriptor[C, Row, Run]) replication(c C, target contract.Target, opts Options) (n, perRep int, replica C, ok bool) {
	if !d.def.Rule.Replicated() || opts.Replications <= 0 || d.pub == nil {
		return 0, 0, replica, false
	}
	for _, diff := range d.differences(c, target) {
		if diff != "" {
			return 0, 0, replica, false
		}
	}
	replica = d.replica(c)
	return opts.Replications, max(1, len(replica.SeedList())), replica, true
}

// replica is c as a verdict replication runs it (sim.Replica, then the
// Def's Replica).
func (d *descriptor[C, Row, Run]) replica(c C) C {
	c = sim.Replica(c)
	if d.def.Replica != nil {
		c = d.def.Replica(c)
	}
	return c
}

// outcome builds the outcome of c's result res, with its replications reps
// (nil: none): the result as JSON records it (config is the configuration
// it records), the section that prints it, and what a baseline checks.
// setup says how ours ran, differences how it departs from the published
// setup.
func (d *descriptor[C, Row, Run]) outcome(c C, config any, res sim.Result[Row, Run], reps *results.Replications[Row], setup string, differences []string, opts Options) *Findings {
	def := d.def
	cmp := results.Compare(d.pub, def.Rule, differences, res.Rows, reps)
	k, clocked := sim.Clocked(c)
	o := &Findings{Invariants: def.Invariants, Ended: ended(res.Runs), RealClock: clocked && k == sim.ClockReal}
	cmp.Warnings = append(append(cmp.Warnings, o.Ended...), unread(res.Runs)...)
	o.Report = results.Report{
		Experiment:   def.Name,
		Config:       config,
		Rows:         NonNil(res.Rows),
		Runs:         NonNil(res.Runs),
		Published:    cmp.Published,
		Replications: cmp.Replications,
		Verdicts:     cmp.Verdicts,
		Warnings:     cmp.Warnings,
		Version:      opts.Version,
	}.Complete()
	o.JSON = o.Report
	parts := d.parts(res.Rows, setup, res.Facts, cmp, opts.TitleSuffix)
	o.Rows = parts.Rows
	if def.Complete != nil {
		def.Complete(c, res, &parts, o)
	}
	o.Section = report.Build(parts)
	return o
}

// parts returns the parts of the section of rows: the experiment's tables,
// the notes, and the comparison cmp. setup says how ours ran.
func (d *descriptor[C, Row, Run]) parts(rows []Row, setup string, facts []string, cmp results.Comparison, titleSuffix string) report.Parts {
	def := d.def
	out := make([]results.Row, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	var published func(results.Row) bool
	if def.PublishedRow != nil {
		published = func(r results.Row) bool { return def.PublishedRow(r.(Row)) }
	}
	return report.Parts{
		Experiment:   def.Name,
		Tables:       def.Tables(rows, report.Shown(cmp)),
		Rows:         out,
		Setup:        setup,
		Facts:        facts,
		Comparison:   cmp,
		TitleSuffix:  titleSuffix,
		Notes:        def.Notes,
		VerdictTitle: def.VerdictTitle,
		Published:    published,
	}
}

// anyPublished reports whether a published row stands for one of rows.
func (d *descriptor[C, Row, Run]) anyPublished(rows []Row) bool {
	if d.pub == nil {
		return false
	}
	return slices.ContainsFunc(rows, func(r Row) bool {
		_, ok := d.pub.Match(results.RowKey(d.pub, r))
		return ok
	})
}

// ended returns why each run of runs that ended early did (results.Ender).
func ended[Run any](runs []Run) []string {
	var out []string
	for _, r := range runs {
		if e, ok := any(r).(results.Ender); ok && e.EndedEarly() != "" {
			out = append(out, e.EndedEarly())
		}
	}
	return out
}

// unread returns why each run of runs whose final state did not read could
// not read it (results.Unreader).
func unread[Run any](runs []Run) []string {
	var out []string
	for _, r := range runs {
		if u, ok := any(r).(results.Unreader); ok && u.Unread() != "" {
			out = append(out, u.Unread()+": every acknowledged edit counts as lost")
		}
	}
	return out
}

// NonNil makes a nil slice empty, so that JSON shows [] not null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Lookup returns the descriptor of the experiment called name among ds.
func Lookup(ds []Descriptor, name string) (Descriptor, error) {
	for _, d := range ds {
		if d.Info().Name == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown experiment %q (want %s)", name, contract.Choice(Names(ds)))
}

// Names returns the names of ds, in order.
func Names(ds []Descriptor) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Info().Name
	}
	return out
}

// OneTable makes the tables of an experiment that prints one table.
func OneTable[Row any](table func(rows []Row, exp *results.Experiment) report.Table) func([]Row, *results.Experiment) []report.MainTable {
	return func(rows []Row, exp *results.Experiment) []report.MainTable { return report.One(table(rows, exp)) }
}
