package experiment

import (
	"encoding/json"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// What the tests of every registered experiment (package experiment_test,
// which may import the registry) read of a descriptor beside what the
// commands do.

// Published returns d's published figures.
func Published(d Descriptor) *results.Experiment { return inspect(d).published() }

// RowNames returns the names d's rows are read by.
func RowNames(d Descriptor) (keys, figures []string) { return inspect(d).rowNames() }

// ReadBack reads recorded back as merge reads a shard's configuration, and
// writes it again.
func ReadBack(d Descriptor, recorded json.RawMessage) ([]byte, error) {
	return d.(interface {
		readBack(json.RawMessage) ([]byte, error)
	}).readBack(recorded)
}

// SectionOf builds the section d's command prints for rows, made up: setup
// says how they ran, diffs how the parameters depart from the published
// setup, reps are the replications behind the verdicts.
func SectionOf[C sim.Configuration[C, Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string, diffs []string, reps *results.Replications[Row], facts []string, suffix string) report.Section {
	dd := d.(*descriptor[C, Row, Run])
	return report.Build(dd.parts(rows, setup, facts, results.Compare(dd.pub, dd.def.Rule, diffs, rows, reps), suffix))
}

// PartsOf is the parts of the section d's command prints for rows, before
// an experiment's own completion adds to them.
func PartsOf[C sim.Configuration[C, Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string) report.Parts {
	dd := d.(*descriptor[C, Row, Run])
	return dd.parts(rows, setup, nil, results.Compare(dd.pub, dd.def.Rule, nil, rows, nil), "")
}

// readBack reads recorded back as merge does and writes it again.
func (d *descriptor[C, Row, Run]) readBack(recorded json.RawMessage) ([]byte, error) {
	c := d.def.Default()
	err := (&results.Shards{Files: []string{"recorded"}, Config: recorded}).ReadConfig(&c)
	return MustJSON(c), err
}

func MustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// InvariantsOf returns the invariants d declares.
func InvariantsOf(d Descriptor) []results.Invariant { return inspect(d).invariants() }

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
