package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// fastOptions holds the fast command's flags.
type fastOptions struct {
	app     *app
	env     envFlags
	out     outFlags
	formats string
	edits   int
	sleep   sleepFlags
}

func newFastCmd(a *app, runF func(context.Context, *fastOptions) error) *cobra.Command {
	opts := &fastOptions{app: a}
	cmd := &cobra.Command{
		Use:   "fast",
		Short: "Lost updates from millisecond timestamps used as versions (no think time)",
		Long: `fast drops the think time and the pause to zero, so the two editors commit as fast
as the store takes their writes, and compares version formats: a commit time cut to
milliseconds (two commits in one millisecond share a version, and a stale write
passes), microseconds plus a random suffix, and a counter. --pause gives both
editors a pause before each read and --oversleep lengthens it, to see how timer
behaviour moves millisecond collisions; neither is the published setup.`,
		Args: noArgs,
		RunE: runner(opts, runF, runFast),
	}
	fs := cmd.Flags()
	opts.env.register(fs, "1-5")
	opts.out.register(fs, 5) // each replication is 20,000 edits per format
	fs.StringVar(&opts.formats, "formats", "ms,us-suffix,counter", "version formats to run: ms, us-suffix, counter")
	fs.IntVar(&opts.edits, "edits", 2000, "edits per editor per run")
	opts.sleep.register(cmd, "0", "pause before each read, both editors: a duration or a range such as 0-2ms (fast has no think time)")
	return cmd
}

func (o *fastOptions) config(ctx context.Context) (sim.Fast, error) {
	env, err := o.env.env(ctx, o.app, "fast")
	if err != nil {
		return sim.Fast{}, err
	}
	cfg := sim.Fast{Env: env, Edits: o.edits}
	formats, err := servedDefault(o.env.flags, env.Target, "formats", o.formats, func(v contract.Variant) string { return string(v.VersionFormat) })
	if err != nil {
		return cfg, err
	}
	if cfg.Formats, err = parseList("--formats", formats, contract.ParseVersionFormat); err != nil {
		return cfg, err
	}
	if cfg.Oversleep, err = o.sleep.oversleepRule(); err != nil {
		return cfg, err
	}
	// No pause is the published setup, however it is written.
	if d, err := sim.ParseDist(o.sleep.pause); err != nil || d != (sim.Dist{}) {
		cfg.Pause = o.sleep.pause
	}
	return cfg, flagError(o.env.flags, cfg.Validate())
}

func runFast(ctx context.Context, o *fastOptions) error {
	defer o.env.close(o.app)
	o.out.history = &o.env.history
	return runExperiment(ctx, o.app, &o.out, "fast", func() (sim.Experiment[results.FastRow, results.RaceRun], error) {
		return o.config(ctx)
	})
}
