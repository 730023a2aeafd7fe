package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// A job is one run of an experiment's configuration with its options, as a
// command or a step of a reproduction makes it, cut into units: the main run
// of one seed (or the whole main run, for an experiment of one seed or
// none), then each seed of the replications behind its verdicts. It runs
// whole, or a shard of its units runs and the parts of every shard are
// assembled into the same result.
type job interface {
	// units is how many units the job has.
	units() int
	// run runs the job whole.
	run(ctx context.Context) (jobResult, error)
	// execute runs the units own says are to run here, and returns their
	// parts, in unit order.
	execute(ctx context.Context, own func(unit int) bool) ([]Part, error)
	// assemble returns the job's result from the parts of all its units.
	assemble(parts []Part) (jobResult, error)
}

// jobResult is what a job gives: the outcome of a run, or, for a job of
// replications alone (a rule of the timing ablation), their verdicts.
type jobResult struct {
	outcome  *Outcome
	verdicts []results.Verdict
}

// runJob is the job of configuration c of descriptor d, run against rt.
type runJob[C sim.Configuration[C, Row, Run], Row results.Row, Run any] struct {
	d    *descriptor[C, Row, Run]
	c    C
	rt   sim.Runtime
	opts Options
	plan unitPlan[C]
	// replicasOnly: the job is its replications alone, judged with no
	// differences (the ablation's rules depart from both timing profiles
	// on purpose).
	replicasOnly bool
	// config is what the outcome records as its configuration: c, or the
	// configuration a shard recorded; setup and differences say how ours
	// ran and how it departs from the published setup.
	config      any
	setup       string
	differences []string
}

// newJob returns the job of c against rt with opts.
func (d *descriptor[C, Row, Run]) newJob(c C, rt sim.Runtime, opts Options) *runJob[C, Row, Run] {
	return &runJob[C, Row, Run]{d: d, c: c, rt: rt, opts: opts, plan: d.plan(c, rt.Target, opts), config: c,
		setup: c.Describe(rt.Target), differences: d.differences(c, rt.Target)}
}

// replicasJob returns the job of c's replications alone: n of them, on
// memory.
func (d *descriptor[C, Row, Run]) replicasJob(c C, n int, memory contract.Target) *runJob[C, Row, Run] {
	replica := c.Replica()
	return &runJob[C, Row, Run]{d: d, c: c, replicasOnly: true, opts: Options{Replications: n, Memory: memory},
		plan: unitPlan[C]{n: n, perRep: max(1, len(replica.SeedList())), replica: replica, replications: true}}
}

// unitPlan is the units of a run of c: its main units — one per seed when
// its seeds fold together, else one for the whole main run — then the
// seeds of its replications.
type unitPlan[C any] struct {
	main         [][]uint64
	n, perRep    int
	replica      C
	replications bool
}

func (d *descriptor[C, Row, Run]) plan(c C, target contract.Target, opts Options) unitPlan[C] {
	var p unitPlan[C]
	seeds := c.SeedList()
	if _, folds := any(c).(sim.Folder[Row, Run]); folds && len(seeds) > 1 {
		for _, s := range seeds {
			p.main = append(p.main, []uint64{s})
		}
	} else {
		p.main = [][]uint64{seeds}
	}
	p.n, p.perRep, p.replica, p.replications = d.replication(c, target, opts)
	return p
}

func (j *runJob[C, Row, Run]) units() int {
	n := len(j.plan.main)
	if j.replicasOnly {
		n = 0
	}
	if j.plan.replications {
		n += j.plan.n * j.plan.perRep
	}
	return n
}

// mainUnits is how many of the job's units are its main run's.
func (j *runJob[C, Row, Run]) mainUnits() int {
	if j.replicasOnly {
		return 0
	}
	return len(j.plan.main)
}

func (j *runJob[C, Row, Run]) run(ctx context.Context) (jobResult, error) {
	if !j.replicasOnly {
		o, err := j.d.run(ctx, j.c, j.rt, j.opts)
		return jobResult{outcome: o}, err
	}
	reps, err := sim.Replicate(ctx, j.plan.replica, j.opts.Memory, j.plan.n, j.plan.perRep, j.opts.progress(j.d.def.Name+" replications"))
	if err != nil {
		return jobResult{}, err
	}
	return jobResult{verdicts: results.Compare(j.d.pub, j.d.def.Rule, nil, []Row(nil), &reps).Verdicts}, nil
}

func (j *runJob[C, Row, Run]) execute(ctx context.Context, own func(int) bool) ([]Part, error) {
	parts := []Part{}
	var units []int
	var seeds [][]uint64
	for u := range j.mainUnits() {
		if own(u) {
			units, seeds = append(units, u), append(seeds, j.plan.main[u])
		}
	}
	parallel := len(seeds) // the real clock's runs mostly sleep
	if k, ok := j.c.Clocked(); !ok || k == sim.ClockVirtual {
		parallel = runtime.NumCPU()
	}
	main, err := runUnits(ctx, j.c, j.rt, seeds, parallel, j.opts.progress(j.d.def.Name))
	if err != nil {
		return nil, err
	}
	for i, res := range main {
		if parts, err = appendPart(parts, units[i], false, seeds[i], res); err != nil {
			return nil, err
		}
	}
	if !j.plan.replications {
		return parts, nil
	}
	units, seeds = nil, nil
	for i := range j.plan.n * j.plan.perRep {
		if u := j.mainUnits() + i; own(u) {
			units, seeds = append(units, u), append(seeds, []uint64{uint64(i + 1)})
		}
	}
	reps, err := runUnits(ctx, j.plan.replica, sim.Runtime{Target: j.opts.Memory}, seeds, runtime.NumCPU(), j.opts.progress(j.d.def.Name+" replications"))
	if err != nil {
		return nil, err
	}
	for i, res := range reps {
		if parts, err = appendPart(parts, units[i], true, seeds[i], res); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

func (j *runJob[C, Row, Run]) assemble(parts []Part) (jobResult, error) {
	if len(parts) != j.units() {
		return jobResult{}, fmt.Errorf("%d of %d units", len(parts), j.units())
	}
	var main, singles []sim.Result[Row, Run]
	for u, p := range parts {
		exp := j.plan.replica
		if u < j.mainUnits() {
			exp = j.c
		}
		res, err := decodePart(exp, p)
		if err != nil {
			return jobResult{}, fmt.Errorf("unit %d: %v", u, err)
		}
		if u < j.mainUnits() {
			main = append(main, res)
		} else {
			singles = append(singles, res)
		}
	}
	var reps *results.Replications[Row]
	foldReps := func() error {
		r, err := sim.FoldReplications(sim.Experiment[Row, Run](j.plan.replica), singles, j.plan.n, j.plan.perRep)
		reps = &r
		return err
	}
	if j.replicasOnly {
		if err := foldReps(); err != nil {
			return jobResult{}, err
		}
		return jobResult{verdicts: results.Compare(j.d.pub, j.d.def.Rule, nil, []Row(nil), reps).Verdicts}, nil
	}
	res, err := sim.Assemble(sim.Experiment[Row, Run](j.c), main)
	if err != nil {
		return jobResult{}, err
	}
	if len(singles) > 0 && j.d.anyPublished(res.Rows) {
		if err := foldReps(); err != nil {
			return jobResult{}, err
		}
	}
	return jobResult{outcome: j.d.outcome(j.c, j.config, res, reps, j.setup, j.differences, j.opts)}, nil
}

// runUnits runs c against rt once for each list of seeds, up to parallel at
// once.
func runUnits[C sim.Experiment[Row, Run], Row results.Row, Run any](ctx context.Context, c C, rt sim.Runtime, seeds [][]uint64, parallel int, progress func(done, total int)) ([]sim.Result[Row, Run], error) {
	switch {
	case len(seeds) == 0:
		return nil, nil
	case len(seeds) == 1 && len(seeds[0]) != 1:
		res, err := c.Run(ctx, rt, seeds[0]) // a whole main run, of no seed or several
		return []sim.Result[Row, Run]{res}, err
	}
	flat := make([]uint64, len(seeds))
	for i, s := range seeds {
		flat[i] = s[0]
	}
	return sim.RunEach(ctx, c, rt, flat, parallel, progress)
}

// appendPart appends the part of unit u to parts.
func appendPart[Row results.Row, Run any](parts []Part, u int, replication bool, seeds []uint64, res sim.Result[Row, Run]) ([]Part, error) {
	rows, err := json.Marshal(nonNil(res.Rows))
	if err != nil {
		return nil, err
	}
	runs, err := json.Marshal(nonNil(res.Runs))
	if err != nil {
		return nil, err
	}
	return append(parts, Part{Unit: u, Replication: replication, Seeds: nonNil(seeds), Rows: rows, Runs: runs, Facts: nonNil(res.Facts)}), nil
}

// decodePart reads a part's rows and runs, the part of a run of exp. When
// exp folds runs into rows, its rows are folded again from its runs: a row's
// JSON may leave out what its verdicts read (bench's repetitions), the runs
// hold all of it.
func decodePart[C sim.Experiment[Row, Run], Row results.Row, Run any](exp C, p Part) (sim.Result[Row, Run], error) {
	var res sim.Result[Row, Run]
	if err := json.Unmarshal(p.Rows, &res.Rows); err != nil {
		return res, fmt.Errorf("rows: %v", err)
	}
	if err := json.Unmarshal(p.Runs, &res.Runs); err != nil {
		return res, fmt.Errorf("runs: %v", err)
	}
	if f, ok := any(exp).(sim.Folder[Row, Run]); ok && len(res.Runs) > 0 {
		rows, err := f.Fold(res.Runs)
		if err != nil {
			return res, fmt.Errorf("rows: %v", err)
		}
		res.Rows = rows
	}
	if len(p.Facts) > 0 {
		res.Facts = p.Facts
	}
	return res, nil
}
