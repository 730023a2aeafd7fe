// Package refs is the refs experiment (how an agent should refer to a tab: by
// position, type, label or ID): its configuration and run, its rows, its
// tables and its descriptor, Experiment, which experiments.All registers.
package refs

import (
	"strconv"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/results"
)

// Experiment is the refs experiment: how an agent should refer to a tab it will
// write to.
var Experiment = experiment.Define(experiment.Def[Config, Row, struct{}]{
	Info: experiment.Info{
		Name:  "refs",
		Short: "How an agent should refer to a tab: by position, type, label or ID",
		Long: `refs gives a Note K Slides tabs with distinct labels. In each trial the agent lists
the tabs, picks a deck and keeps a reference to it (its position in the bar, its type,
its label or its ID); the person then moves, renames or adds tabs; the agent lists
again, resolves its reference and writes to what it found with the fresh version.
It counts correct, wrong-deck and not-found resolutions, and how many of those writes
the version check let through.

See docs/model.md (the model) and docs/usage.md (shared flags).`,
		Examples: []string{
			"notesbench refs",
			"notesbench refs --k 3 --trials 2000 --mix move=0.6,rename=0.2,add=0.2",
		},
		// Each fraction is judged against its sampling spread over the trials.
		Target: true, InMemory: true, Replications: experiment.NoReplications, Baseline: true,
		Needs: []contract.Capability{contract.CapList, contract.CapEditTabs, contract.CapPerson},
	},
	Default: Default,
	Params: func(c *Config) []experiment.Param {
		return []experiment.Param{
			experiment.List("k", &c.K, func(s string) (int, error) {
				var n int
				err := experiment.Int("k", &n, "").Set(s)
				return n, err
			}, strconv.Itoa, "numbers of decks in the Note, one table block each (1 to 5)").Completing(true),
			experiment.Int("trials", &c.Trials, "trials per K").AsPublished(),
			experiment.OneSeed("refs", &c.Seed).AsPublished().Labelled("seed"),
			experiment.Int("edits-max", &c.EditsMax, "the person makes 0 to this many edits per trial, uniformly").AsPublished(),
			experiment.Custom("mix", "string", "shares of the person's edits: move, rename, add",
				func() string { return c.Mix.String() },
				func(s string) error {
					m, err := ParseMix(s)
					if err != nil {
						return err
					}
					c.Mix = m
					return nil
				}).AsPublished(),
			experiment.Int("parallel", &c.Parallel, "workers, each with a store of its own (0: one per CPU); results do not depend on it"),
		}
	},
	Rule:   results.Rule[Row]{Judge: proportionVerdicts},
	Tables: experiment.OneTable(Table),
	Notes: []string{
		"wrong deck: the reference resolved to another tab than the target — another deck, or, for a position, a fixed tab",
		"writes passing the version check are counted over the writes the check judged: a slide_add to a fixed tab is refused before any version check and left out",
		"the version check passes every write by construction, here as in the published model: nothing writes between the agent's listing and its write; it is shown, not judged",
	},
	VerdictTitle: func(results.Comparison) string {
		return "Verdicts: published fractions against ours over as many trials (an exact binomial test)"
	},
})
