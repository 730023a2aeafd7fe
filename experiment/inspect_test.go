package experiment

import "github.com/notesbench/notesbench/results"

// What the tests read of a descriptor beside what the commands do: its
// published figures, the names its rows are read by and its invariants.

// inspected is every descriptor, as the tests see it.
type inspected interface {
	published() *results.Experiment
	rowNames() (keys, figures []string)
	invariants() []results.Invariant
}

func (d *descriptor[C, Row, Run]) published() *results.Experiment  { return d.pub }
func (d *descriptor[C, Row, Run]) invariants() []results.Invariant { return d.def.Invariants }

func (d *descriptor[C, Row, Run]) rowNames() (keys, figures []string) {
	var r Row
	return r.Names()
}

func inspect(d Descriptor) inspected { return d.(inspected) }
