// Package validate is the validate experiment (check payloads against the
// rebuilt tools/list schema): its configuration and run, its rows, its tables
// and its descriptor, Experiment, which experiments.All registers.
package validate

import (
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/results"
)

// Experiment is the validate experiment: the eight published payloads against
// a minimal validator and the full JSON Schema.
var Experiment = experiment.Define(experiment.Def[Config, Row, struct{}]{
	Info: experiment.Info{
		Name:  "validate",
		Short: "Check payloads against the rebuilt tools/list schema",
		Long: `With no arguments, validate checks the eight payloads of the published table with a
deliberately minimal validator (required, enum, additionalProperties, minItems and
maxItems only) and with the full JSON Schema validator, and prints both verdicts.

With a tool name and a file (or - for standard input), it checks that payload against
the tool's full input schema and prints every violation, path and keyword; it exits 1
when the payload is invalid.

See docs/usage.md (checking a payload of your own).`,
		Examples: []string{
			"notesbench validate                               # the eight published payloads",
			"notesbench validate create_note_tab payload.json  # any payload: every violation, exit 1 when invalid",
			"echo '{}' | notesbench validate edit_note_tab -",
		},
		Replications: experiment.NoReplications, Baseline: true,
	},
	Default: Default,
	Params:  func(*Config) []experiment.Param { return nil },
	Rule:    results.Rule[Row]{Judge: results.TextVerdicts[Row]},
	Tables:  experiment.OneTable(Table),
})
