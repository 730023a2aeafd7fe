// Package outline is the outline experiment (one create_note_tab with an
// outline, or an empty create and one slide_add per slide): its configuration
// and run, its rows, its tables and its descriptor, Experiment, which
// experiments.All registers.
package outline

import (
	"time"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/results"
)

// Experiment is the outline experiment: one create_note_tab with an outline, or
// an empty create and one slide_add per slide.
var Experiment = experiment.Define(experiment.Def[Config, Row, struct{}]{
	Info: experiment.Info{
		Name:  "outline",
		Short: "One create_note_tab with an outline, or an empty create and one slide_add per slide",
		Long: `outline builds a deck both ways, validates every request against the schema and
sends it to the store, and counts writes and request bytes (the JSON arguments as
sent; they depend on our slide texts). Conflicts per deck come from a model: each write
comes --window after the agent's read, and the person saves anywhere in the Note as a
Poisson process; the exact expectation writes × (1 − e^(−window·rate)) is printed
beside the simulated mean. Decks over 20 slides take several outline calls.

See docs/model.md (the model) and docs/usage.md (shared flags).`,
		Examples: []string{
			"notesbench outline",
			"notesbench outline --slides 25          # a deck over 20 slides takes several outline calls",
			"notesbench outline --window 30s --saves-per-minute 2",
		},
		InMemory: true, Replications: 200, Baseline: true,
		Reproduce: experiment.Plan{Mul: 2},
	},
	Default: Default,
	Params: func(c *Config) []experiment.Param {
		return []experiment.Param{
			experiment.Int("slides", &c.Slides, "slides in the deck").AsPublished(),
			experiment.Int("decks", &c.Decks, "simulated decks for the conflict figures").AsPublished(),
			experiment.Custom("window", "duration", "time between the agent's read and each write",
				func() string { return time.Duration(c.WindowS * float64(time.Second)).String() },
				func(s string) error {
					var d time.Duration
					if err := experiment.Duration("window", &d, "").Set(s); err != nil {
						return err
					}
					c.WindowS = d.Seconds()
					return nil
				}).AsPublished().ForField("window_s"),
			experiment.Float("saves-per-minute", &c.SavesPerMinute, "mean rate of the person's saves anywhere in the Note").AsPublished(),
			experiment.OneSeed("outline", &c.Seed),
		}
	},
	Rule:   results.Rule[Row]{RatioOnly: []string{"request_bytes"}},
	Tables: experiment.OneTable(Table),
})
