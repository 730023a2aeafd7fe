// Package experiments is the registry of the experiments: each one is a
// package below it (experiments/<name>) holding its configuration, run,
// rows, rule, tables and descriptor, and All lists them once.
package experiments

import (
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/bench"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/experiments/outline"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/refs"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/experiments/tabs"
	"github.com/notesbench/notesbench/experiments/validate"
)

// All returns every experiment, in the order the commands, the help and
// reproduce list them. A new experiment is added here, once.
func All() []experiment.Descriptor {
	return []experiment.Descriptor{race.Experiment, tabs.Experiment, fast.Experiment, create.Experiment, sources.Experiment, refs.Experiment, outline.Experiment, validate.Experiment, bench.Experiment}
}
