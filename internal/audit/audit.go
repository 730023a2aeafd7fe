package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Budget is how much of each experiment an audit runs: what it changes of
// each one's configuration, and how much the fault modes and the checks do.
// It is declared once per name (Budgets).
type Budget struct {
	Name string
	// About says in a line what the budget is for, for the help; the
	// figures are in docs/audit.md.
	About string
	// Race, Create and Sources are what each experiment's configuration
	// gets, beside the modes and order the target serves.
	Race    experiment.Change[race.Config]
	Create  experiment.Change[create.Config]
	Sources experiment.Change[sources.Config]
	// Kills is how many times a fault mode kills the server (crash: per
	// synchronous setting); Synchronous the SQLite settings crash runs the
	// embedded store under, a run each.
	Kills       int
	Synchronous []contract.Synchronous
	// CheckTimeout bounds each check of the race's history.
	CheckTimeout time.Duration
	// FastTime bounds conform's within-a-millisecond clause (conform
	// --fast-time); 0 is conform's default.
	FastTime time.Duration
	// PartTime bounds each part of the audit (an experiment, conform, a
	// fault mode): a part that runs out of it is recorded as not judged,
	// and the audit goes on with the next.
	PartTime time.Duration
	// Nemesis is what the race's configuration gets under each nemesis
	// (seeds among the race's own, so that a fault's losses stand beside
	// those of the same seeds without it), and NemesisEvery the mean time
	// between faults.
	Nemesis      experiment.Change[race.Config]
	NemesisEvery time.Duration
}

// Budgets are the budgets an audit runs at, smallest first; what each takes
// on this project's 2-core machine is in docs/audit.md.
var Budgets = []Budget{{
	Name:         "smoke",
	About:        "seconds: whether the audit runs at all, not how a server fares",
	Race:         raceChange{Given: []string{"seeds", "edits"}, Set: func(c *race.Config) { c.Seeds, c.Edits = seedRange(1, 2), 20 }},
	Create:       createChange{Given: []string{"seeds", "tabs"}, Set: func(c *create.Config) { c.Seeds, c.Tabs = seedRange(1, 1), 10 }},
	Sources:      sourcesChange{Given: []string{"seeds", "sessions"}, Set: func(c *sources.Config) { c.Seeds, c.Sessions = seedRange(1, 1), 3 }},
	Kills:        5,
	Synchronous:  []contract.Synchronous{contract.SyncNormal},
	CheckTimeout: 30 * time.Second,
	FastTime:     2 * time.Second,
	PartTime:     time.Minute,
	Nemesis:      raceChange{Given: []string{"seeds", "edits"}, Set: func(c *race.Config) { c.Seeds, c.Edits = seedRange(1, 1), 20 }},
	NemesisEvery: 300 * time.Millisecond,
}, {
	Name:         "quick",
	About:        "race and create at their published setups, within 5 minutes a server",
	Race:         raceChange{Given: []string{"seeds"}, Set: func(c *race.Config) { c.Seeds = seedRange(1, 5) }},
	Create:       createChange{Given: []string{"seeds"}, Set: func(c *create.Config) { c.Seeds = seedRange(1, 3) }},
	Sources:      sourcesChange{Given: []string{"seeds", "sessions"}, Set: func(c *sources.Config) { c.Seeds, c.Sessions = seedRange(1, 3), 20 }},
	Kills:        20,
	Synchronous:  []contract.Synchronous{contract.SyncNormal, contract.SyncFull},
	CheckTimeout: time.Minute,
	PartTime:     3 * time.Minute,
	// Half the race's edits: a kill restarts a Node server (a second of
	// CPU, two sessions each) about every second of the run, and at 100
	// edits two seeds of obsidian-mcp ran out of the part's 3 minutes
	// beside other work on two cores.
	Nemesis:      raceChange{Given: []string{"seeds", "edits"}, Set: func(c *race.Config) { c.Seeds, c.Edits = seedRange(1, 2), 50 }},
	NemesisEvery: 500 * time.Millisecond,
}, {
	Name:         "full",
	About:        "4 times quick's race seeds, sources at its published size",
	Race:         raceChange{Given: []string{"seeds"}, Set: func(c *race.Config) { c.Seeds = seedRange(1, 20) }},
	Create:       createChange{Given: []string{"seeds"}, Set: func(c *create.Config) { c.Seeds = seedRange(1, 10) }},
	Sources:      sourcesChange{Given: []string{"seeds"}, Set: func(c *sources.Config) { c.Seeds = seedRange(1, 3) }},
	Kills:        200,
	Synchronous:  []contract.Synchronous{contract.SyncNormal, contract.SyncFull},
	CheckTimeout: 5 * time.Minute,
	PartTime:     20 * time.Minute,
	Nemesis:      raceChange{Given: []string{"seeds"}, Set: func(c *race.Config) { c.Seeds = seedRange(1, 5) }},
	NemesisEvery: 500 * time.Millisecond,
}}

// What a budget changes of race, create and sources.
type (
	raceChange    = experiment.Change[race.Config]
	createChange  = experiment.Change[create.Config]
	sourcesChange = experiment.Change[sources.Config]
)

// seedRange is the seeds lo to hi.
func seedRange(lo, hi uint64) []uint64 {
	var out []uint64
	for s := lo; s <= hi; s++ {
		out = append(out, s)
	}
	return out
}

// editsEnd is when the race's editors, in a part that started at start,
// start their last edit (sim.Runtime.StopAt): half the part's time, the
// other half left to read what they left, tear down and check the
// history. A server that slows to a crawl under a fault (a kill it takes
// seconds to come back from) is then judged on the edits it served, and
// its runs say where they stopped. Zero without a PartTime.
func (b Budget) editsEnd(start time.Time) time.Time {
	if b.PartTime <= 0 {
		return time.Time{}
	}
	return start.Add(b.PartTime / 2)
}

// LookupBudget returns the budget called name.
func LookupBudget(name string) (Budget, error) {
	for _, b := range Budgets {
		if b.Name == name {
			return b, nil
		}
	}
	return Budget{}, fmt.Errorf("unknown budget %q (want %s)", name, contract.Choice(BudgetNames()))
}

// BudgetNames returns the names of the budgets, smallest first.
func BudgetNames() []string {
	out := make([]string, len(Budgets))
	for i, b := range Budgets {
		out[i] = b.Name
	}
	return out
}

// Options are what an audit runs and how it is judged. The target, the
// fault modes and the progress line are arguments of Run, not part of them.
type Options struct {
	// Reach is what the caller knows of the target: the --target and
	// --profile it was given (for the commands the audit lists), how
	// notesbench reaches it, what its profile says; Run composes the
	// subject from it, and adds what the target says of itself.
	Reach Reach
	// Store is the --store flag the audit was given ("" when it was not),
	// for the commands it lists.
	Store string
	// TargetFlags are the other flags the audit was given of how to reach
	// the target (--spawn, --call-timeout, …), with their values, for the
	// commands it lists.
	TargetFlags []string
	// Reopen opens the target afresh. Where the target's server keeps its
	// state in the folder mcpclient.DirPlaceholder names (Reach.StateDir),
	// each part that runs on it (race, conform, create, sources) gets a
	// target of its own, closed when the part ends, and so a store of its
	// own: one part that destroys it (two writers, a torn file) leaves the
	// next parts' measurements standing, as each command run alone has.
	// Otherwise, or when nil, they all run on the target Run is given.
	Reopen func(ctx context.Context) (contract.Target, error)
	Budget Budget
	// Parallel, when above 0, is the runs each experiment makes at once.
	Parallel int
	// MaxErrors ends a run once this many of its calls ended in a server
	// error (sim.TargetSettings.MaxErrors); 0 is the default.
	MaxErrors int
	// Allow names the anomalies that do not fail the audit.
	Allow []string
	// Baseline, when set, is an earlier audit whose counts this one's must
	// not exceed; BaselineFile names it.
	Baseline     *results.Audit
	BaselineFile string
	// Version is notesbench's version, for the records.
	Version string
}

// Validate refuses options an audit cannot run with: a field error named
// as the command's flag for it is (parallel, baseline).
func (o Options) Validate() error {
	if err := sim.ValidateParallel(o.Parallel); err != nil {
		return err
	}
	if o.Baseline != nil && o.Baseline.Budget != o.Budget.Name {
		return field.Errorf("baseline", "%s is an audit at budget %s, this one runs %s: counts of different budgets cannot be compared", o.BaselineFile, o.Baseline.Budget, o.Budget.Name)
	}
	return nil
}

// A FaultMode is one fault mode of an audit, a column of its matrix: the
// kill -9 test of the embedded store (crash), a nemesis against a server.
// The caller hands them to Run, since only it knows which processes
// notesbench owns and how to start them; a mode it cannot run here says
// why in NotRun, and its cells say "not run" with that reason, never 0.
type FaultMode struct {
	Mode   string
	NotRun string
	// Needs are the operations its runs call: a target that lacks one
	// (a read-only server's, for a mode that writes) does not run it, and
	// its cells say why.
	Needs []contract.Capability
	Run   func(ctx context.Context, b Budget) (FaultOutcome, error)
}

// FaultOutcome is what a fault mode found.
type FaultOutcome struct {
	// LostAcknowledged counts acknowledged writes missing from the final
	// state; nil when it could not be judged (a check ran out of time).
	LostAcknowledged *int
	// Unreadable counts the runs whose document or database did not read
	// back whole, of Runs.
	Unreadable, Runs int
	// Errors counts the calls that ended in a server error, nil when the
	// mode does not count them; AppliedTwice the lines or sources the
	// final state holds more than once, and EmptyReads the reads that
	// found the document emptied, nil when it does not count them.
	Errors, AppliedTwice, EmptyReads *int
	// History is the history the fault mode recorded and Checks the checks
	// of it, whose proofs show its counts; nil when it recorded none.
	History []byte
	Checks  *results.CheckReport
	// Part is the fault run's record; Tables its tables; Warnings what the
	// audit should say of it.
	Part     results.AuditPart
	Tables   []report.Table
	Warnings []string
}

// The columns of the matrix beside the race's modes and the faults'.
const (
	modeConform = "conform"
	modeSources = "sources"
)

// Run runs the audit opts describe against target: race under the guard it
// serves (both policies where it reports conflicts) with its history
// checked, conform, create and sources where it maps a create and a
// listing, then each of faults; and returns its record, built whole, with
// its matrix judged, beside the tables of its parts and the checker's
// timeline (what the renderers show of it). A part the target cannot run
// says why; a part that ends in an error is recorded, and the audit goes
// on. Each part runs within the budget's PartTime: a part that runs out of
// it is not judged, and said so (results.Audit.Unfinished). When ctx ends
// (a signal), the part under way and those after it are not judged, and
// Run returns what the parts before measured, the audit marked unfinished:
// a partial record is still a record. Only a configuration of notesbench's
// own that does not hold (opts that do not validate) is an error.
func Run(ctx context.Context, target contract.Target, faults []FaultMode, nemeses []NemesisMode, progress func(what string) func(done, total int), opts Options) (*report.AuditDoc, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	a := &auditRun{cfg: opts, target: target, progress: progress, cells: map[string][]results.AuditCell{}, histories: map[string][]byte{}, unfaulted: map[uint64]int{}}
	a.subject()
	steps := []step{a.raceStep(), a.conformStep(), a.createStep(), a.sourcesStep()}
	// The faults that kill the server come last, the kill -9 test after
	// the kill nemesis: a server a kill leaves unable to start again (a
	// stale lock on its store) is still judged under every fault that
	// does not kill it, and the kill's own columns say what it left.
	for _, m := range killsLast(nemeses) {
		steps = append(steps, a.nemesisStep(m))
	}
	for _, f := range faults {
		steps = append(steps, a.faultStep(f))
	}
	for _, s := range steps {
		if err := a.run(ctx, s); err != nil {
			return nil, err
		}
	}
	a.declaredNotKept()
	rec := results.Audit{
		Experiment:  results.AuditExperiment,
		Subject:     a.subj,
		Budget:      opts.Budget.Name,
		ClientCosts: a.costs,
		Errors:      a.errors,
		Baseline:    opts.BaselineFile,
		Parts:       a.parts,
		Plots:       append(a.plots, a.costPlots...),
		Warnings:    a.warnings,
		Unfinished:  a.unfinished,
		Version:     opts.Version,
	}
	rec.Judge(a.modes, a.cells, opts.Allow)
	if opts.Baseline != nil {
		rec.Regressions = results.Regressions(opts.Baseline, &rec)
	}
	rec.Seconds = roundSeconds(time.Since(start))
	rec = rec.Complete()
	return &report.AuditDoc{Audit: rec, Tables: a.tables, Timeline: a.timeline, Histories: a.histories}, nil
}

// auditRun is one audit being run: what its parts found so far.
type auditRun struct {
	cfg      Options
	target   contract.Target
	progress func(what string) func(done, total int)

	subj results.AuditSubject
	// variant is what the target serves; known says it said so (an
	// embedded store serves the default variant the audit asks for).
	variant contract.Variant
	known   bool
	// mapping is what the target's writes carry, and the hints its server
	// declares of the tools they go through.
	mapping contract.Mapping

	modes  []string
	cells  map[string][]results.AuditCell
	costs  []results.ClientCost
	parts  []results.AuditPart
	tables [][]report.Table
	plots  []results.AuditPlot
	// costPlots show what the client's policies cost; they follow the
	// server's.
	costPlots []results.AuditPlot
	warnings  []string
	errors    []string
	timeline  []byte
	// unfinished says which parts were not judged, and why.
	unfinished []string
	// histories are those the audit judged, by their names under its
	// folder.
	histories map[string][]byte
	// unfaulted is what the race's re-applying mode lost per seed, without
	// a fault: beside it stand the nemeses' losses.
	unfaulted map[uint64]int
}

// A step is one part of an audit: run runs it and records what it found;
// skip records, in the cells it would have filled, why it was not judged.
type step struct {
	name string
	run  func(ctx context.Context) error
	skip func(why string)
}

// run runs s within the budget's PartTime. A step that ends in ctx's end
// or its own deadline is not judged: what it recorded is dropped, its
// cells say why, and the audit says so; after ctx ends, every step is
// skipped that way. Any other error is the audit's own.
func (a *auditRun) run(ctx context.Context, s step) error {
	if err := ctx.Err(); err != nil {
		a.unjudged(s, "not judged: "+interrupted(ctx))
		return nil
	}
	before := a.mark()
	pctx, cancel := context.WithTimeout(ctx, cmp.Or(a.cfg.Budget.PartTime, time.Duration(math.MaxInt64)))
	start := time.Now()
	err := s.run(pctx)
	cancel()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		a.rewind(before)
		a.unjudged(s, fmt.Sprintf("not judged: %s after %v of it", interrupted(ctx), time.Since(start).Round(time.Second)))
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		a.rewind(before)
		a.unjudged(s, fmt.Sprintf("not judged: it ran out of its %v (budget %s)", a.cfg.Budget.PartTime, a.cfg.Budget.Name))
		return nil
	}
	return err
}

// interrupted says what ended ctx.
func interrupted(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return "the audit ended (" + cause.Error() + ")"
	}
	return "the audit was interrupted"
}

// unjudged records s as a part not judged, and why, in its cells.
func (a *auditRun) unjudged(s step, why string) {
	a.part(results.AuditPart{Name: s.name, NotRun: why}, nil)
	a.unfinished = append(a.unfinished, s.name+": "+why)
	s.skip(why)
}

// mark is how much an audit had recorded at one moment, for rewind.
type mark struct {
	cells                                            map[string]int
	parts, costs, plots, costPlots, warnings, errors int
}

// mark returns how much a has recorded so far.
func (a *auditRun) mark() mark {
	m := mark{cells: map[string]int{}, parts: len(a.parts), costs: len(a.costs), plots: len(a.plots), costPlots: len(a.costPlots), warnings: len(a.warnings), errors: len(a.errors)}
	for k, v := range a.cells {
		m.cells[k] = len(v)
	}
	return m
}

// rewind drops what a recorded since m.
func (a *auditRun) rewind(m mark) {
	for k := range a.cells {
		a.cells[k] = a.cells[k][:m.cells[k]]
	}
	a.parts, a.tables = a.parts[:m.parts], a.tables[:m.parts]
	a.costs, a.plots, a.costPlots = a.costs[:m.costs], a.plots[:m.plots], a.costPlots[:m.costPlots]
	a.warnings, a.errors = a.warnings[:m.warnings], a.errors[:m.errors]
}

// subject completes what the audit says of its target: the variant it
// serves, what its writes carry and how it describes itself.
func (a *auditRun) subject() {
	a.subj = a.cfg.Reach.Subject(a.cfg.Parallel, a.cfg.Version)
	a.subj.Describe = a.target.Describe()
	a.variant = contract.Variant{}.WithDefaults()
	if s, ok := a.target.(contract.Served); ok {
		if v, known := s.Served(); known {
			a.variant, a.known = v.WithDefaults(), true
		} else {
			a.warnings = append(a.warnings, "the server does not say which contract variant it serves: its runs are labelled as the contract's (guard note, key first)")
		}
	} else {
		// The embedded store serves whatever a run asks: the audit asks for
		// the published connector's variant.
		a.known = true
	}
	a.subj.Guard, a.subj.VersionFormat = string(a.variant.Guard), string(a.variant.VersionFormat)
	m := contract.Mapping{}
	if t, ok := a.target.(contract.Mapped); ok {
		m = t.Mapping()
	}
	a.mapping = m
	if m.Native() {
		a.subj.VersionCheck, a.subj.Key = a.variant.Guard != contract.GuardNone, true
	} else {
		a.subj.VersionCheck, a.subj.Key = m.VersionCheck, m.Key
		if m.VersionFormat != "" {
			a.subj.VersionFormat = string(m.VersionFormat)
		}
	}
}

// require returns why the target cannot run the experiment d, "" when it
// can.
func (a *auditRun) require(d experiment.Descriptor) string {
	info := d.Info()
	if c, ok := a.target.(contract.Capable); ok && len(info.Needs) > 0 {
		if err := c.Require(info.Name, info.Needs...); err != nil {
			return err.Error()
		}
	}
	return ""
}

// targetArgs are the flags that name the target to an experiment command.
func (a *auditRun) targetArgs() []string {
	var out []string
	if a.cfg.Reach.Remote {
		out = append(out, "--target", a.cfg.Reach.Target)
	}
	if a.cfg.Reach.Profile != "" {
		out = append(out, "--profile", a.cfg.Reach.Profile)
	}
	if a.cfg.Store != "" {
		out = append(out, "--store", a.cfg.Store)
	}
	out = append(out, a.cfg.TargetFlags...)
	if a.cfg.MaxErrors > 0 && a.cfg.MaxErrors != sim.DefaultMaxErrors {
		out = append(out, "--max-errors", strconv.Itoa(a.cfg.MaxErrors))
	}
	return out
}

// configure returns the experiment d with the budget's change, then, when
// the target does not say itself what it serves, variant's, then the
// audit's --parallel (which parallel sets), then more's: the order their
// parameters take on the part's command line.
func configure[C any](a *auditRun, d experiment.Descriptor, budget, variant experiment.Change[C], parallel func(c *C, n int), more ...experiment.Change[C]) (experiment.Configured, error) {
	changes := []experiment.Change[C]{budget}
	if _, served := a.target.(contract.Served); !served || !a.known {
		changes = append(changes, variant)
	}
	if n := a.cfg.Parallel; n > 0 {
		changes = append(changes, experiment.Change[C]{Given: []string{"parallel"}, Set: func(c *C) { parallel(c, n) }})
	}
	x, err := experiment.Configure(d, append(changes, more...)...)
	if err != nil {
		return x, fmt.Errorf("audit: %w", err)
	}
	return x, nil
}

// command is the command line of experiment name with flags.
func (a *auditRun) command(name string, flags []string, extra ...string) []string {
	out := append([]string{"notesbench", name}, a.targetArgs()...)
	out = append(out, flags...)
	return append(out, extra...)
}

// runExperiment runs the experiment x, against rt's target (the audit's
// when rt names none). Its error is ctx's, or a configuration of the
// audit's own that does not hold (a bug); an error of the run itself is
// returned as runErr, to be recorded.
func (a *auditRun) runExperiment(ctx context.Context, x experiment.Configured, rt sim.Runtime) (out *experiment.Findings, runErr, err error) {
	if rt.Target == nil {
		t, done, err := a.partTarget(ctx)
		if err != nil {
			return nil, err, ctx.Err()
		}
		defer done()
		rt.Target = t
	}
	if a.progress != nil {
		rt.Progress = a.progress(x.Info().Name)
	}
	if err := x.Finish(x.Given); err != nil {
		return nil, nil, fmt.Errorf("audit: %s: %w", x.Info().Name, err)
	}
	if err := x.Use(sim.TargetSettings{TargetName: a.cfg.Reach.name(), MaxErrors: a.cfg.MaxErrors}, rt, x.Given); err != nil {
		return nil, err, nil
	}
	out, err = x.Run(ctx, experiment.Options{Version: a.cfg.Version})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, err, nil
	}
	return out, nil, nil
}

// partTarget returns the target a part runs on, and what to call when it
// is done with it: the audit's, or one opened afresh (Options.Reopen). A
// target that no longer opens is the part's error, in the target's words.
func (a *auditRun) partTarget(ctx context.Context) (contract.Target, func(), error) {
	if a.cfg.Reopen == nil || a.cfg.Reach.StateDir == "" {
		return a.target, func() {}, nil
	}
	t, err := a.cfg.Reopen(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the target afresh for the part: %w", err)
	}
	return t, func() {
		if err := t.Close(); err != nil {
			a.warnings = append(a.warnings, "closing the target a part ran on: "+err.Error())
		}
	}, nil
}

// part records a part that ran (or did not), with its tables.
func (a *auditRun) part(p results.AuditPart, tables []report.Table) {
	if p.Error != "" {
		a.errors = append(a.errors, p.Name+": "+p.Error)
	}
	a.parts = append(a.parts, p)
	a.tables = append(a.tables, tables)
}

// ran records the part p of an experiment that ran, out its outcome: its
// JSON result, its tables and its warnings, named by the part.
func (a *auditRun) ran(p results.AuditPart, out *experiment.Findings) {
	p.Result = out.JSON
	a.part(p, out.Section.Tables())
	a.warnings = append(a.warnings, prefixed(p.Name+": ", out.Report.Warnings)...)
}

// add adds a cell to the row of anomaly.
func (a *auditRun) add(anomaly string, c results.AuditCell) {
	a.cells[anomaly] = append(a.cells[anomaly], c)
}

// column adds mode to the matrix's columns.
func (a *auditRun) column(mode string) {
	if !slices.Contains(a.modes, mode) {
		a.modes = append(a.modes, mode)
	}
}

// notRun adds a cell that says why mode did not count it to each of
// anomalies' rows.
func (a *auditRun) notRun(mode, why string, anomalies ...string) {
	a.column(mode)
	for _, an := range anomalies {
		a.add(an, results.NotRunCell(mode, "", why))
	}
}

// endedIn returns why an experiment's run ended in err, for its cells.
func endedIn(name string, err error) string {
	return name + " ended in an error: " + err.Error()
}

// conformStep is conform's part: the stale-version and no-expected_version
// clauses are the matrix's.
func (a *auditRun) conformStep() step {
	return step{name: "conform", run: a.conform, skip: func(why string) {
		a.notRun(modeConform, why, results.AnomalyStaleWrite, results.AnomalyUnversionedWrite)
	}}
}

// conform runs conform on the target.
func (a *auditRun) conform(ctx context.Context) error {
	p := results.AuditPart{Name: "conform", Command: []string{"notesbench", "conform", "--target", a.cfg.Reach.target()}}
	if a.cfg.Reach.Profile != "" {
		p.Command = append(p.Command, "--profile", a.cfg.Reach.Profile)
	}
	if ft := a.cfg.Budget.FastTime; ft > 0 {
		p.Command = append(p.Command, "--fast-time", ft.String())
	}
	start := time.Now()
	target, done, err := a.partTarget(ctx)
	var rep results.ConformReport
	var tables []report.Table
	if err == nil {
		rep, tables, err = runConform(ctx, target, a.cfg.Reach.name(), a.cfg.Budget.FastTime)
		done()
	}
	p.Seconds = roundSeconds(time.Since(start))
	a.column(modeConform)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p.Error = err.Error()
		a.part(p, nil)
		a.notRun(modeConform, endedIn("conform", err), results.AnomalyStaleWrite, results.AnomalyUnversionedWrite)
		return nil
	}
	p.Result = results.NewConformRecord(results.ConformConfig{Target: a.cfg.Reach.target(), Profile: a.cfg.Reach.Profile}, rep, a.cfg.Version)
	a.part(p, tables)
	a.add(results.AnomalyStaleWrite, clauseCell(rep.Checks, clauseStaleVersion, "the stale-version clause"))
	a.add(results.AnomalyUnversionedWrite, clauseCell(rep.Checks, clauseNoVersion, "the no-expected_version clause"))
	return nil
}

// roundSeconds is d in seconds, to a tenth.
func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(100*time.Millisecond)) / float64(time.Second)
}

// errNoRows is an experiment whose outcome holds rows of another type than
// the audit reads: a bug.
var errNoRows = errors.New("audit: an experiment's rows are not of the type the audit reads")
