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

// A Job is one run of an experiment's configuration with its options, cut
// into units: the main run of one seed (or the whole main run, for an
// experiment of one seed or none), then each seed of the replications behind
// its verdicts. Every run goes through one: Execute runs the units that are
// to run here — all of them for a whole run, a shard's share for a shard, a
// step's share of a sharded reproduction — and Assemble puts the results of
// all of them together; a shard writes what it ran as Parts, and a merge
// Reads the parts of every shard back before it assembles. A Job is made by
// Instance.Job or Instance.ReplicationsJob.
type Job interface {
	// Units is how many units the job has.
	Units() int
	// Execute runs the units own says are to run here and keeps their
	// results; a nil own runs a whole run: every unit, but the
	// replications no verdict reads.
	Execute(ctx context.Context, own func(unit int) bool) error
	// Parts returns the results kept, as the parts a shard records, in
	// unit order.
	Parts() ([]results.Part, error)
	// Read keeps the results of parts, the parts of every unit a merge
	// read back, in unit order.
	Read(parts []results.Part) error
	// Assemble returns the job's result from the results of all its units.
	Assemble() (JobResult, error)
	// Digests returns, per unit in order, the digest of what it gave
	// (results.Part.Digest) when the job's result reads it and a run of it
	// gives the same again on any machine, else "". Every unit the result
	// reads must be done.
	Digests() ([]string, error)
}

// runWhole runs every unit of j and assembles them.
func runWhole(ctx context.Context, j Job) (JobResult, error) {
	if err := j.Execute(ctx, nil); err != nil {
		return JobResult{}, err
	}
	return j.Assemble()
}

// JobResult is what a job gives: the findings of a run (Instance.Job), or,
// for a job of replications alone (Instance.ReplicationsJob), their
// verdicts.
type JobResult struct {
	Findings *Findings
	Verdicts []results.Verdict
}

// runJob is the job of configuration c of descriptor d, run against rt.
type runJob[C sim.Runner[Row, Run], Row results.Row, Run any] struct {
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
	// done holds the result of each unit run here or read back, by unit.
	done []*unitResult[Row, Run]
}

// unitResult is what one unit gave.
type unitResult[Row results.Row, Run any] struct {
	seeds []uint64
	res   sim.Result[Row, Run]
}

// newJob returns the job of c against rt with opts.
func (d *descriptor[C, Row, Run]) newJob(c C, rt sim.Runtime, opts Options) *runJob[C, Row, Run] {
	j := &runJob[C, Row, Run]{d: d, c: c, rt: rt, opts: opts, plan: d.plan(c, rt.Target, opts), config: c,
		setup: c.Describe(rt.Target), differences: d.differences(c, rt.Target)}
	j.done = make([]*unitResult[Row, Run], j.Units())
	return j
}

// replicasJob returns the job of c's replications alone: opts.Replications
// of them, on opts.Memory.
func (d *descriptor[C, Row, Run]) replicasJob(c C, opts Options) *runJob[C, Row, Run] {
	replica := d.replica(c)
	j := &runJob[C, Row, Run]{d: d, c: c, replicasOnly: true, opts: opts,
		plan: unitPlan[C]{n: opts.Replications, perRep: max(1, len(replica.SeedList())), replica: replica, replications: true}}
	j.done = make([]*unitResult[Row, Run], j.Units())
	return j
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

func (j *runJob[C, Row, Run]) Units() int {
	n := j.mainUnits()
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

// Execute runs the main units own gives here in one run of c, on their seeds,
// as c runs several seeds at once (its parallelism, its progress, its
// history), cut back into units; then the replication seeds own gives here,
// one per CPU. In a whole run (own nil), when no published row stands for
// the rows of the main run, the replications are left out: no verdict would
// read them.
func (j *runJob[C, Row, Run]) Execute(ctx context.Context, own func(int) bool) error {
	whole := own == nil
	if whole {
		own = func(int) bool { return true }
	}
	var units []int
	var seeds []uint64
	for u := range j.mainUnits() {
		if own(u) {
			units, seeds = append(units, u), append(seeds, j.plan.main[u]...)
		}
	}
	if len(units) > 0 {
		res, err := j.c.Run(ctx, j.rt, seeds)
		if err != nil {
			return err
		}
		perUnit := []sim.Result[Row, Run]{res}
		if len(j.plan.main) > 1 { // a unit per seed
			if perUnit, err = sim.Split(sim.Runner[Row, Run](j.c), res, len(units)); err != nil {
				return err
			}
		}
		for i, u := range units {
			j.done[u] = &unitResult[Row, Run]{seeds: j.plan.main[u], res: perUnit[i]}
		}
	}
	if !j.plan.replications || (whole && !j.replicasOnly && !j.needsReplications()) {
		return nil
	}
	units, seeds = nil, nil
	for i := range j.plan.n * j.plan.perRep {
		if u := j.mainUnits() + i; own(u) {
			units, seeds = append(units, u), append(seeds, uint64(i+1))
		}
	}
	reps, err := sim.RunEach(ctx, j.plan.replica, sim.Runtime{Target: j.opts.Memory}, seeds, runtime.NumCPU(), j.opts.ProgressOf(j.d.def.Name+" replications"))
	if err != nil {
		return err
	}
	for i, u := range units {
		j.done[u] = &unitResult[Row, Run]{seeds: []uint64{seeds[i]}, res: reps[i]}
	}
	return nil
}

// needsReplications reports whether the verdicts of the main run read its
// replications: a published row stands for one of its rows. Every main unit
// must be done.
func (j *runJob[C, Row, Run]) needsReplications() bool {
	res, err := j.main()
	return err != nil || j.d.anyPublished(res.Rows)
}

// main returns the main run, assembled from its units.
func (j *runJob[C, Row, Run]) main() (sim.Result[Row, Run], error) {
	perUnit := make([]sim.Result[Row, Run], j.mainUnits())
	for u := range perUnit {
		if j.done[u] == nil {
			return sim.Result[Row, Run]{}, fmt.Errorf("unit %d did not run", u)
		}
		perUnit[u] = j.done[u].res
	}
	return sim.Assemble(sim.Runner[Row, Run](j.c), perUnit)
}

func (j *runJob[C, Row, Run]) Assemble() (JobResult, error) {
	var singles []sim.Result[Row, Run]
	for u := j.mainUnits(); u < j.Units(); u++ {
		if j.done[u] != nil {
			singles = append(singles, j.done[u].res)
		}
	}
	var reps *results.Replications[Row]
	foldReps := func() error {
		if len(singles) != j.plan.n*j.plan.perRep {
			return fmt.Errorf("%d of %d replication seeds ran", len(singles), j.plan.n*j.plan.perRep)
		}
		r, err := sim.FoldReplications(sim.Runner[Row, Run](j.plan.replica), singles, j.plan.n, j.plan.perRep)
		reps = &r
		return err
	}
	if j.replicasOnly {
		if err := foldReps(); err != nil {
			return JobResult{}, err
		}
		return JobResult{Verdicts: results.Compare(j.d.pub, j.d.def.Rule, nil, []Row(nil), reps).Verdicts}, nil
	}
	res, err := j.main()
	if err != nil {
		return JobResult{}, err
	}
	if j.plan.replications && j.d.anyPublished(res.Rows) {
		if err := foldReps(); err != nil {
			return JobResult{}, err
		}
	}
	return JobResult{Findings: j.d.outcome(j.c, j.config, res, reps, j.setup, j.differences, j.opts)}, nil
}

func (j *runJob[C, Row, Run]) Parts() ([]results.Part, error) {
	out := []results.Part{}
	for u, done := range j.done {
		if done == nil {
			continue
		}
		rows, err := json.Marshal(NonNil(done.res.Rows))
		if err != nil {
			return nil, err
		}
		runs, err := json.Marshal(NonNil(done.res.Runs))
		if err != nil {
			return nil, err
		}
		out = append(out, results.Part{Unit: u, Replication: u >= j.mainUnits(), Seeds: NonNil(done.seeds), Rows: rows, Runs: runs, Facts: NonNil(done.res.Facts)})
	}
	return out, nil
}

// Read reads each part's rows and runs, the part of a run of c or, for a
// replication, of the replica. When the experiment folds runs into rows, its
// rows are folded again from its runs: a row's JSON may leave out what its
// verdicts read (bench's repetitions), the runs hold all of it.
func (j *runJob[C, Row, Run]) Read(parts []results.Part) error {
	if len(parts) != j.Units() {
		return fmt.Errorf("%d of %d units", len(parts), j.Units())
	}
	for u, p := range parts {
		exp := j.plan.replica
		if u < j.mainUnits() {
			exp = j.c
		}
		var res sim.Result[Row, Run]
		if err := json.Unmarshal(p.Rows, &res.Rows); err != nil {
			return fmt.Errorf("unit %d: rows: %v", u, err)
		}
		if err := json.Unmarshal(p.Runs, &res.Runs); err != nil {
			return fmt.Errorf("unit %d: runs: %v", u, err)
		}
		if f, ok := any(exp).(sim.Folder[Row, Run]); ok && len(res.Runs) > 0 {
			rows, err := f.Fold(res.Runs)
			if err != nil {
				return fmt.Errorf("unit %d: rows: %v", u, err)
			}
			res.Rows = rows
		}
		if len(p.Facts) > 0 {
			res.Facts = p.Facts
		}
		j.done[u] = &unitResult[Row, Run]{seeds: p.Seeds, res: res}
	}
	return nil
}

func (j *runJob[C, Row, Run]) Digests() ([]string, error) {
	out := make([]string, j.Units())
	if k, clocked := sim.Clocked(j.c); !j.d.def.Info.Baseline || clocked && k == sim.ClockReal {
		return out, nil // timings of this machine (bench), or runs on the wall clock
	}
	readsReplications := j.replicasOnly
	if !j.replicasOnly && j.plan.replications {
		res, err := j.main()
		if err != nil {
			return nil, err
		}
		readsReplications = j.d.anyPublished(res.Rows)
	}
	parts, err := j.Parts()
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if !p.Replication || readsReplications {
			out[p.Unit] = p.Digest()
		}
	}
	for u, d := range out {
		if d == "" && (u < j.mainUnits() || readsReplications) {
			return nil, fmt.Errorf("unit %d did not run", u)
		}
	}
	return out, nil
}
