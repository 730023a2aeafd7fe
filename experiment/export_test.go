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

// SectionOf is sectionOf, for the tests of every experiment.
func SectionOf[C sim.Configuration[C, Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string, diffs []string, reps *results.Replications[Row], facts []string, suffix string) report.Section {
	return sectionOf[C](d, rows, setup, diffs, reps, facts, suffix)
}

// RaceSection, RaceRows and RaceReps are race's made-up section, rows and
// replications.
var (
	RaceSection = raceSection
	RaceRows    = raceRows
	RaceReps    = raceReps
)

// PartsOf is the parts of the section d's command prints for rows, before
// an experiment's own completion adds to them.
func PartsOf[C sim.Configuration[C, Row, Run], Row results.Row, Run any](d Descriptor, rows []Row, setup string) report.Parts {
	dd := d.(*descriptor[C, Row, Run])
	return dd.parts(rows, setup, nil, results.Compare(dd.pub, dd.def.Rule, nil, rows, nil), "")
}
