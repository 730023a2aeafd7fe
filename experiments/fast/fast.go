// Package fast is the fast experiment, lost updates from millisecond
// timestamps used as versions (no think time): its configuration and run,
// its rows, its table and its descriptor, Experiment, which experiments.All
// registers.
package fast

import (
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Experiment is the fast experiment: lost updates from millisecond timestamps used
// as versions.
var Experiment = experiment.Define(experiment.Def[Config, Row, results.RaceRun]{
	Info: experiment.Info{
		Name:  "fast",
		Short: "Lost updates from millisecond timestamps used as versions (no think time)",
		Long: `fast drops the think time and the pause to zero, so the two editors commit as fast
as the store takes their writes, and compares version formats: a commit time cut to
milliseconds (two commits in one millisecond share a version, and a stale write
passes), microseconds plus a random suffix, and a counter. --pause gives both
editors a pause before each read and --oversleep lengthens it, to see how timer
behaviour moves millisecond collisions; neither is the published setup.

See docs/model.md (the model) and docs/usage.md (shared flags).`,
		Examples: []string{
			"notesbench fast                                  # the wall clock: ms collisions as the OS interleaves",
			"notesbench fast --clock virtual --service-time 200us",
			"notesbench fast --formats ms --pause 0-2ms",
		},
		// Each replication is 20,000 edits per format, and with no think
		// time every seed gives the virtual clock the same counts: the
		// reproduction runs a tenth of them.
		Target: true, History: true, Replications: 5, Baseline: true,
		Reproduce: experiment.Plan{Div: 10},
		Needs:     []contract.Capability{contract.CapRead, contract.CapWrite},
	},
	Default: Default,
	// A replication for the verdicts leaves out the formats no published
	// row stands for (the counter, our control).
	Replica: func(c Config) Config { c.keepPublishedRows(); return c },
	Params: func(c *Config) []experiment.Param {
		return append(experiment.EnvParams(&c.Env),
			experiment.EnumList("formats", &c.Formats, contract.VersionFormats, "version formats to run: ms, us-suffix, counter").
				ServedAs(func(v contract.Variant) string { return string(v.VersionFormat) }),
			experiment.Int("edits", &c.Edits, "edits per editor per run").AsPublished(),
			experiment.Custom("pause", "string", "pause before each read, both editors: a duration or a range such as 0-2ms (fast has no think time)",
				func() string {
					if c.Pause == "" {
						return "0"
					}
					return c.Pause
				},
				func(s string) error {
					// No pause is the published setup, however it is written.
					if d, err := sim.ParseDist(s); err == nil && d == (sim.Dist{}) {
						s = ""
					}
					c.Pause = s
					return nil
				}).AsPublished().Completing(false, "0\tno pause"),
			experiment.OversleepParam(&c.Oversleep),
		)
	},
	Invariants: []results.Invariant{
		{Key: "version_format", Value: "us-suffix", Figure: "lost", Why: "us-suffix versions never collide"},
		{Key: "version_format", Value: "counter", Figure: "lost", Why: "counter versions never collide"},
	},
	Tables: experiment.OneTable(Table),
})
