package experiment

import (
	"encoding/json"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// What the tests of every registered experiment (package experiment_test,
// which may import the registry) read of a descriptor beside what the
// commands do: its published figures, the names its rows are read by, its
// invariants, its configuration read back, and its section for made-up rows.

// inspected is every descriptor, as the tests see it.
type inspected interface {
	published() *results.Experiment
	rowNames() (keys, figures []string)
	invariants() []results.Invariant
	readBack(json.RawMessage) ([]byte, error)
}

func inspect(d Descriptor) inspected { return d.(inspected) }

func (d *descriptor[C, Row, Run]) published() *results.Experiment  { return d.pub }
func (d *descriptor[C, Row, Run]) invariants() []results.Invariant { return d.def.Invariants }

func (d *descriptor[C, Row, Run]) rowNames() (keys, figures []string) {
	var r Row
	return r.Names()
}

// readBack reads recorded back as merge does and writes it again.
func (d *descriptor[C, Row, Run]) readBack(recorded json.RawMessage) ([]byte, error) {
	c := d.def.Default()
	err := (&results.Shards{Files: []string{"recorded"}, Config: recorded}).ReadConfig(&c)
	return MustJSON(c), err
}

// Published returns d's published figures.
func Published(d Descriptor) *results.Experiment { return inspect(d).published() }

// RowNames returns the names d's rows are read by.
func RowNames(d Descriptor) (keys, figures []string) { return inspect(d).rowNames() }

// InvariantsOf returns the invariants d declares.
func InvariantsOf(d Descriptor) []results.Invariant { return inspect(d).invariants() }

// ReadBack reads recorded back as merge reads a shard's configuration, and
// writes it again.
func ReadBack(d Descriptor, recorded json.RawMessage) ([]byte, error) {
	return inspect(d).readBack(recorded)
}

// MustJSON is v's JSON; v is one the tests made, which always marshals.
func MustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// PartsOf is the parts of the section d's command prints for rows, made
// up, that ran as setup says, before an experiment's own completion adds to
// them.
func PartsOf[C sim.Runner[Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string) report.Parts {
	return partsOf[C](d, rows, setup, nil, nil, nil, "")
}

// SectionOf builds the section d's command prints for rows, made up: setup
// says how they ran, diffs how the parameters depart from the published
// setup, reps are the replications behind the verdicts.
func SectionOf[C sim.Runner[Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string, diffs []string, reps *results.Replications[Row], facts []string, suffix string) report.Section {
	return report.Build(partsOf[C](d, rows, setup, diffs, reps, facts, suffix))
}

func partsOf[C sim.Runner[Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string, diffs []string, reps *results.Replications[Row], facts []string, suffix string) report.Parts {
	dd := d.(*descriptor[C, Row, Run])
	return dd.parts(rows, setup, facts, results.Compare(dd.pub, dd.def.Rule, diffs, rows, reps), suffix)
}

// Differences returns how in departs from the published setup, as the
// command says it.
func Differences(in Instance) []string {
	return in.(interface{ departures() []string }).departures()
}

func (in *instance[C, Row, Run]) departures() []string {
	var out []string
	for _, d := range in.d.differences(in.cfg, in.rt.Target) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// CopiesOf returns in's configuration as JSON recording settings as its
// target (sim.WithTarget), and its clock as a replication runs it, "" for
// one that runs on one clock of its own.
func CopiesOf(in Instance, settings sim.TargetSettings) (withTarget []byte, replicaClock sim.ClockKind) {
	return in.(interface {
		copies(sim.TargetSettings) ([]byte, sim.ClockKind)
	}).copies(settings)
}

func (in *instance[C, Row, Run]) copies(s sim.TargetSettings) ([]byte, sim.ClockKind) {
	k, _ := sim.Clocked(in.d.replica(in.cfg))
	return MustJSON(sim.WithTarget(in.cfg, s)), k
}
