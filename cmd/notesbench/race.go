package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// raceOptions holds the race command's flags.
type raceOptions struct {
	app     *app
	env     envFlags
	out     outFlags
	modes   string
	editing editingFlags
}

func newRaceCmd(a *app, runF func(context.Context, *raceOptions) error) *cobra.Command {
	opts := &raceOptions{app: a}
	cmd := &cobra.Command{
		Use:   "race",
		Short: "Lost updates with and without the version check (claude and a person append lines to one text)",
		Long: `race runs a scripted agent ("claude") and a scripted person ("human") against one
Note. Each edit pauses, reads the text tab, thinks, and writes the text plus one
unique line; on a version conflict the editor re-reads and writes again at once,
re-applying its line to the fresh text (reapply) or resending its old text with the
fresh version (refresh). Lines acknowledged by the store and missing at the end are
lost updates. The defaults are the published setup.

The write-up states no pause between edits. By default each editor pauses for a
draw from its own think range, read from the published wall time (--timing
default). --timing published-fit pauses U(0, the think maximum) and lengthens every
pause and think by min(d/4, 5ms): a model inferred from the published figures, not
stated in the write-up. --pause and --oversleep set the two rules one by one.`,
		Args: noArgs,
		RunE: runner(opts, runF, runRace),
	}
	fs := cmd.Flags()
	opts.env.register(fs, "1-5")
	opts.out.register(fs, results.MinReplications)
	fs.StringVar(&opts.modes, "modes", "none,note/reapply,note/refresh", "rows to run: guard/policy pairs (guard none, note or tab; policy reapply or refresh)")
	opts.editing.register(cmd)
	return cmd
}

// config turns the flags into a race configuration.
func (o *raceOptions) config(ctx context.Context) (sim.Race, error) {
	env, err := o.env.env(ctx, o.app, "race")
	if err != nil {
		return sim.Race{}, err
	}
	cfg := sim.Race{Env: env, VersionFormat: contract.FormatCounter}
	if v, _, known := served(env.Target); known {
		cfg.VersionFormat = v.VersionFormat
	}
	modes, err := servedDefault(o.env.flags, env.Target, "modes", o.modes, func(v contract.Variant) string {
		if v.Guard == contract.GuardNone {
			return "none"
		}
		return string(v.Guard) + "/reapply," + string(v.Guard) + "/refresh"
	})
	if err != nil {
		return cfg, err
	}
	if cfg.Modes, err = sim.ParseModes(modes); err != nil {
		return cfg, usageErr("--modes", err)
	}
	if cfg.Editing, err = o.editing.parse(); err != nil {
		return cfg, err
	}
	return cfg, flagError(o.env.flags, cfg.Validate())
}

func runRace(ctx context.Context, o *raceOptions) error {
	defer o.env.close(o.app)
	o.out.history = &o.env.history
	return runExperiment(ctx, o.app, &o.out, "race", func() (sim.Experiment[results.RaceRow, results.RaceRun], error) {
		return o.config(ctx)
	})
}
