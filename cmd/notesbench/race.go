package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// raceOptions holds the race command's flags.
type raceOptions struct {
	app         *app
	env         envFlags
	out         outFlags
	modes       string
	edits       int
	claudeThink string
	humanThink  string
	pause       string
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
	opts.out.register(fs, 40)
	fs.StringVar(&opts.modes, "modes", "none,note/reapply,note/refresh", "rows to run: guard/policy pairs (guard none, note or tab; policy reapply or refresh)")
	fs.IntVar(&opts.edits, "edits", 100, "edits per editor per run")
	fs.StringVar(&opts.claudeThink, "claude-think", "20ms-80ms", "claude's think time between read and write: a uniform range or one duration")
	fs.StringVar(&opts.humanThink, "human-think", "5ms-40ms", "the person's think time between read and write")
	fs.StringVar(&opts.pause, "pause", sim.PauseThink, `pause before each read: "think" (each editor draws from its own think range) or a range such as 0 or 10ms-30ms`)
	return cmd
}

// config turns the flags into a race configuration.
func (o *raceOptions) config() (sim.RaceConfig, error) {
	env, err := o.env.env()
	if err != nil {
		return sim.RaceConfig{}, err
	}
	cfg := sim.RaceConfig{Env: env, Edits: o.edits, Pause: o.pause}
	if cfg.Modes, err = sim.ParseModes(o.modes); err != nil {
		return cfg, usageErr("--modes", err)
	}
	if cfg.ClaudeThink, err = sim.ParseDist(o.claudeThink); err != nil {
		return cfg, usageErr("--claude-think", err)
	}
	if cfg.HumanThink, err = sim.ParseDist(o.humanThink); err != nil {
		return cfg, usageErr("--human-think", err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

func runRace(ctx context.Context, o *raceOptions) error {
	a := o.app
	format, err := o.out.check(a, "race")
	if err != nil {
		return err
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	if err := o.out.needVirtual(cfg.Clock); err != nil {
		return err
	}
	rep, tables, err := raceReport(ctx, a, cfg, o.out.replications)
	if err != nil {
		return err
	}
	return emit(a, &o.out, format, rep, tables)
}

// raceReport runs the race experiment, and its verdict replications when the
// parameters are the published ones, and returns the report and its tables.
func raceReport(ctx context.Context, a *app, cfg sim.RaceConfig, replications int) (results.Report, []report.Table, error) {
	def := sim.DefaultRace()
	cmp := compareWith("race",
		differ("seeds", sim.FormatSeeds(cfg.Seeds), sim.FormatSeeds(def.Seeds)),
		differ("edits", cfg.Edits, def.Edits),
		differ("claude-think", cfg.ClaudeThink, def.ClaudeThink),
		differ("human-think", cfg.HumanThink, def.HumanThink),
		differ("pause", cfg.Pause, def.Pause))
	cfg.Progress = progress(a, "race")
	runs, err := sim.Race(ctx, cfg)
	if err != nil {
		return results.Report{}, nil, err
	}
	rows := foldModes(runs, len(cfg.Modes), results.SummarizeRace)
	var reps [][]map[string]any
	if cmp.published() && replications > 0 {
		rcfg := cfg
		rcfg.Env = replicationEnv(cfg.Env, replications, len(cfg.Seeds))
		rcfg.Progress = progress(a, "race replications")
		rruns, err := sim.Race(ctx, rcfg)
		if err != nil {
			return results.Report{}, nil, err
		}
		if reps, err = groupReplications(rruns, len(cfg.Modes), replications, len(cfg.Seeds), results.SummarizeRace); err != nil {
			return results.Report{}, nil, err
		}
	}
	rep := results.Report{Experiment: "race", Config: cfg, Rows: rows, Runs: runs}
	setup := fmt.Sprintf("%s clock, seeds %s, %d edits per editor, claude think %s, human think %s, pause %s",
		cfg.Clock, sim.FormatSeeds(cfg.Seeds), cfg.Edits, cfg.ClaudeThink, cfg.HumanThink, cfg.Pause)
	return rep, cmp.finish(&rep, report.RaceTable(rows, cmp.shown()), reps, setup), nil
}
