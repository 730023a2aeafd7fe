package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
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
lost updates. The defaults are the published setup.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRace(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.env.register(fs, "1-5", "real")
	opts.out.register(fs, minReplications)
	fs.StringVar(&opts.modes, "modes", "none,note/reapply,note/refresh", "rows to run: guard/policy pairs (guard none, note or tab; policy reapply or refresh)")
	opts.editing.register(fs)
	return cmd
}

// config turns the flags into a race configuration.
func (o *raceOptions) config() (sim.RaceConfig, error) {
	env, err := o.env.env()
	if err != nil {
		return sim.RaceConfig{}, err
	}
	cfg := sim.RaceConfig{Env: env, Edits: o.editing.edits, Pause: o.editing.pause, VersionFormat: contract.FormatCounter}
	if cfg.Modes, err = sim.ParseModes(o.modes); err != nil {
		return cfg, usageErr("--modes", err)
	}
	if cfg.ClaudeThink, cfg.HumanThink, err = o.editing.parse(); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	o.out.setClock(cfg.Clock)
	return cfg, nil
}

func runRace(ctx context.Context, o *raceOptions) error {
	defer o.env.close()
	return runExperiment(ctx, o.app, &o.out, "race", o.config, func(ctx context.Context, cfg sim.RaceConfig) (results.Report, []report.Table, error) {
		return raceReport(ctx, o.app, cfg, o.out.replications)
	})
}

// raceReport runs the race experiment, and its verdict replications when the
// parameters are the published ones, and returns the report and its tables.
func raceReport(ctx context.Context, a *app, cfg sim.RaceConfig, replications int) (results.Report, []report.Table, error) {
	def := sim.DefaultRace()
	cfg.Progress = progress(a, "race")
	return engineReport(ctx, a, engineSpec[sim.RaceConfig, results.RaceRow]{
		name:  "race",
		cfg:   cfg,
		env:   cfg.Env,
		cmp:   compareList("race", editingDiffs(cfg.Env, cfg.Edits, cfg.ClaudeThink, cfg.HumanThink, cfg.Pause, sim.DefaultRace(), def.Seeds)),
		setup: editingSetup(cfg.Env, cfg.Edits, cfg.ClaudeThink, cfg.HumanThink, cfg.Pause),
		modes: len(cfg.Modes),
		run:   sim.Race,
		fold:  results.SummarizeRace,
		table: report.RaceTable,
		replicate: func(env sim.Env) (sim.RaceConfig, int) {
			r := cfg
			r.Env = env
			return r, len(r.Modes)
		},
	}, replications)
}
