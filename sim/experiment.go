package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/results"
)

// Result is what an experiment returns for some seeds: its table rows, the
// per-run results they were folded from, and facts of the runs that are not
// figures (sources: how many calls listing a Note's sources took).
type Result[Row results.Row, Run any] struct {
	Rows  []Row
	Runs  []Run
	Facts []string
}

// Runner is one experiment at one configuration. The configuration is the
// value itself (race.Config, create.Config, …), and its JSON form is the config
// block of a report: it holds data only. What its runs go to and report to
// (the target, the history, the progress line) is a Runtime, passed to Run;
// what depends on the target (whether it can run the configuration, how the
// runs are described, how they depart from the published setup) takes the
// target as an argument. Every experiment runs for a list of seeds and
// returns its rows and runs; the verdicts' replications are its runs of
// one seed each, folded by one function (FoldReplications). Its name, parameters and published setup are its
// descriptor's (package experiment).
type Runner[Row results.Row, Run any] interface {
	// SeedList returns the seeds the configuration names.
	SeedList() []uint64
	// Validate checks the configuration, and that target (nil: none) can
	// run it; its errors are *field.Error.
	Validate(target contract.Target) error
	// Run runs the experiment on seeds, against rt.
	Run(ctx context.Context, rt Runtime, seeds []uint64) (Result[Row, Run], error)
	// Describe says in one line how ours runs against target: clock,
	// seeds, parameters.
	Describe(target contract.Target) string
	// Departures lists how the runs against target depart from the
	// published setup in a way that changes counts, beside the parameters:
	// the virtual clock's service time and an in-memory database under the
	// real clock (for a configuration that runs on either clock), a
	// server's contract, and the faults made between notesbench and it.
	Departures(target contract.Target) []string
}

// The settings of a configuration that the pipeline makes its copies
// with are found through the values it embeds: one that embeds
// TargetSettings records the target its runs go to, one that embeds Env runs
// on either clock. No configuration writes a method for them.
type (
	targeted  interface{ targetSettings() *TargetSettings }
	environed interface{ environment() *Env }
)

func (s *TargetSettings) targetSettings() *TargetSettings { return s }
func (e *Env) environment() *Env                          { return e }

// Clocked reports whether c runs on either clock (it embeds an Env), and on
// which; any other configuration runs on one clock of its own.
func Clocked[C any](c C) (ClockKind, bool) {
	if e, ok := any(&c).(environed); ok {
		return e.environment().Clock, true
	}
	return "", false
}

// OnClock returns c on clock k, for a configuration that runs on either
// clock; any other comes back as it is.
func OnClock[C any](c C, k ClockKind) C {
	if e, ok := any(&c).(environed); ok {
		e.environment().Clock = k
	}
	return c
}

// WithTarget returns c recording s as the target its runs go to; one that
// runs against no target (it embeds no TargetSettings) comes back as it is.
func WithTarget[C any](c C, s TargetSettings) C {
	if t, ok := any(&c).(targeted); ok {
		*t.targetSettings() = s
	}
	return c
}

// Replica returns c as a verdict replication runs it: the same parameters,
// on the virtual clock with in-memory databases (Env.Replica) for one that
// runs on either clock, and with no target settings.
func Replica[C any](c C) C {
	if e, ok := any(&c).(environed); ok {
		*e.environment() = e.environment().Replica()
	}
	return WithTarget(c, TargetSettings{})
}

// Folder is an experiment whose runs of several seeds fold into rows: the
// replications of a published table of several seeds fold theirs.
type Folder[Row results.Row, Run any] interface {
	// Fold folds runs of several seeds, as Run returns them, into rows.
	Fold(runs []Run) ([]Row, error)
}

// fieldErr returns a *field.Error for name with a formatted message.
func fieldErr(name, format string, args ...any) error { return field.Errorf(name, format, args...) }

// ErrNoTarget is the error of a configuration without a target to run on.
var ErrNoTarget = field.Wrap("target", errors.New("no contract target to run against"))

// RunEach runs exp against rt once for each of seeds, one seed per call of
// exp.Run, up to parallel at once (0: one per CPU), and returns the results
// in the order of seeds. progress, when set, is called after each seed.
func RunEach[Row results.Row, Run any](ctx context.Context, exp Runner[Row, Run], rt Runtime, seeds []uint64, parallel int, progress func(done, total int)) ([]Result[Row, Run], error) {
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	ticks := newProgress(len(seeds), progress)
	defer ticks.stop()
	return RunSeeds(ctx, seeds, parallel, func(ctx context.Context, seed uint64) (Result[Row, Run], error) {
		res, err := exp.Run(ctx, rt, []uint64{seed})
		if err == nil {
			ticks.tick()
		}
		return res, err
	})
}

// FoldReplications folds the single runs of seeds 1 to n·perRep, in order,
// into n replications of perRep seeds each: the verdicts' replications,
// whose seeds experiment's jobs run one per unit (RunEach runs them all
// at once).
func FoldReplications[Row results.Row, Run any](exp Runner[Row, Run], singles []Result[Row, Run], n, perRep int) (results.Replications[Row], error) {
	var out results.Replications[Row]
	if len(singles) != n*perRep {
		return out, fmt.Errorf("%d single runs for %d replications of %d seeds", len(singles), n, perRep)
	}
	out.Singles = make([][]Row, len(singles))
	for i, s := range singles {
		out.Singles[i] = s.Rows
	}
	folder, _ := exp.(Folder[Row, Run])
	if perRep > 1 && folder == nil {
		return out, fmt.Errorf("%T runs of %d seeds cannot be folded into one replication", exp, perRep)
	}
	out.Reps = make([][]Row, n)
	for r := range out.Reps {
		if perRep == 1 {
			out.Reps[r] = out.Singles[r]
			continue
		}
		var runs []Run
		for _, s := range singles[r*perRep : (r+1)*perRep] {
			runs = append(runs, s.Runs...)
		}
		var err error
		if out.Reps[r], err = folder.Fold(runs); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Assemble returns the result of one run of several seeds from the results
// of each seed run alone, in seed order: their runs row by row (the first
// run of every seed, then the second, …, as a run of all the seeds orders
// them), folded into rows; the facts are the first seed's. A single result
// is returned as it is.
func Assemble[Row results.Row, Run any](exp Runner[Row, Run], perSeed []Result[Row, Run]) (Result[Row, Run], error) {
	if len(perSeed) == 1 {
		return perSeed[0], nil
	}
	var res Result[Row, Run]
	if len(perSeed) == 0 {
		return res, errors.New("no runs to assemble")
	}
	folder, ok := exp.(Folder[Row, Run])
	if !ok {
		return res, fmt.Errorf("%T runs of %d seeds cannot be folded", exp, len(perSeed))
	}
	width := len(perSeed[0].Runs)
	for _, r := range perSeed {
		if len(r.Runs) != width {
			return res, fmt.Errorf("the seeds' runs differ in number: %d and %d", width, len(r.Runs))
		}
	}
	for i := range width {
		for _, r := range perSeed {
			res.Runs = append(res.Runs, r.Runs[i])
		}
	}
	res.Facts = perSeed[0].Facts
	var err error
	res.Rows, err = folder.Fold(res.Runs)
	return res, err
}

// Split cuts res, the result of a run of exp on n seeds, into the result of
// each seed, in the order of the seeds: the inverse of Assemble, whose runs
// of one seed stand every n-th, each seed's rows folded from its runs. A run
// of one seed is its own.
func Split[Row results.Row, Run any](exp Runner[Row, Run], res Result[Row, Run], n int) ([]Result[Row, Run], error) {
	if n == 1 {
		return []Result[Row, Run]{res}, nil
	}
	folder, ok := exp.(Folder[Row, Run])
	switch {
	case !ok:
		return nil, fmt.Errorf("%T runs of %d seeds cannot be split", exp, n)
	case n < 1 || len(res.Runs)%n != 0:
		return nil, fmt.Errorf("%d runs are not the same number for each of %d seeds", len(res.Runs), n)
	}
	out := make([]Result[Row, Run], n)
	for i, r := range res.Runs {
		out[i%n].Runs = append(out[i%n].Runs, r)
	}
	for s := range out {
		out[s].Facts = res.Facts
		var err error
		if out[s].Rows, err = folder.Fold(out[s].Runs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// progress reports finished runs to a callback from one goroutine, so that
// the callback need not be safe for concurrent use.
type progress struct {
	done chan struct{}
	wait chan struct{}
}

// newProgress starts reporting to fn (nil: nowhere) out of total.
func newProgress(total int, fn func(done, total int)) *progress {
	p := &progress{done: make(chan struct{}, total), wait: make(chan struct{})}
	go func() {
		defer close(p.wait)
		n := 0
		for range p.done {
			n++
			if fn != nil {
				fn(n, total)
			}
		}
	}()
	return p
}

func (p *progress) tick() { p.done <- struct{}{} }

// stop ends the reporting goroutine and waits for it.
func (p *progress) stop() {
	close(p.done)
	<-p.wait
}

// Percent writes a fraction as a percentage with one decimal: 0.3 → "30.0 %".
func Percent(p float64) string { return strconv.FormatFloat(100*p, 'f', 1, 64) + " %" }

// SeedsOf returns the seeds of runs in order of first appearance.
func SeedsOf[Run any](runs []Run, seed func(Run) uint64) []uint64 {
	var out []uint64
	for _, r := range runs {
		if s := seed(r); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
