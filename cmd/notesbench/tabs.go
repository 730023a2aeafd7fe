package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// tabsOptions holds the tabs command's flags.
type tabsOptions struct {
	app         *app
	env         envFlags
	out         outFlags
	scopes      string
	edits       int
	claudeThink string
	humanThink  string
	pause       string
}

func newTabsCmd(a *app, runF func(context.Context, *tabsOptions) error) *cobra.Command {
	opts := &tabsOptions{app: a}
	cmd := &cobra.Command{
		Use:   "tabs",
		Short: "False conflicts from a Note-wide version (claude on the text, a person on a Sheet)",
		Long: `tabs runs claude appending lines to the text tab while the person writes one new
cell per edit in a Sheet tab, with the same pause/read/think/write loop and re-apply on
conflict. The two never touch the same tab, so every conflict is a false one: it
measures what a Note-wide version costs against per-tab versions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTabs(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.env.register(fs, "1-3", "real")
	opts.out.register(fs, 40)
	fs.StringVar(&opts.scopes, "scopes", "note,tab", "version scopes to run: note, tab (and none)")
	fs.IntVar(&opts.edits, "edits", 100, "edits per editor per run")
	fs.StringVar(&opts.claudeThink, "claude-think", "20ms-80ms", "claude's think time between read and write")
	fs.StringVar(&opts.humanThink, "human-think", "5ms-40ms", "the person's think time between read and write")
	fs.StringVar(&opts.pause, "pause", sim.PauseThink, `pause before each read: "think" or a range such as 0 or 10ms-30ms`)
	return cmd
}

func (o *tabsOptions) config() (sim.TabsConfig, error) {
	env, err := o.env.env()
	if err != nil {
		return sim.TabsConfig{}, err
	}
	cfg := sim.TabsConfig{Env: env, Edits: o.edits, Pause: o.pause}
	for _, s := range strings.Split(o.scopes, ",") {
		g, err := store.ParseGuard(strings.TrimSpace(s))
		if err != nil {
			return cfg, usageErr("--scopes", err)
		}
		cfg.Scopes = append(cfg.Scopes, g)
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

func runTabs(ctx context.Context, o *tabsOptions) error {
	a := o.app
	format, err := o.out.check(a, "tabs")
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
	rep, tables, err := tabsReport(ctx, a, cfg, o.out.replications)
	if err != nil {
		return err
	}
	return emit(a, &o.out, format, rep, tables)
}

// tabsReport runs the tabs experiment, and its verdict replications when the
// parameters are the published ones, and returns the report and its tables.
func tabsReport(ctx context.Context, a *app, cfg sim.TabsConfig, replications int) (results.Report, []report.Table, error) {
	def := sim.DefaultTabs()
	cmp := compareWith("tabs",
		differ("seeds", sim.FormatSeeds(cfg.Seeds), sim.FormatSeeds(def.Seeds)),
		differ("edits", cfg.Edits, def.Edits),
		differ("claude-think", cfg.ClaudeThink, def.ClaudeThink),
		differ("human-think", cfg.HumanThink, def.HumanThink),
		differ("pause", cfg.Pause, def.Pause))
	cfg.Progress = progress(a, "tabs")
	runs, err := sim.Tabs(ctx, cfg)
	if err != nil {
		return results.Report{}, nil, err
	}
	rows := foldModes(runs, len(cfg.Scopes), results.SummarizeTabs)
	var reps [][]map[string]any
	if cmp.published() && replications > 0 {
		rcfg := cfg
		rcfg.Env = replicationEnv(cfg.Env, replications, len(cfg.Seeds))
		rcfg.Progress = progress(a, "tabs replications")
		rruns, err := sim.Tabs(ctx, rcfg)
		if err != nil {
			return results.Report{}, nil, err
		}
		if reps, err = groupReplications(rruns, len(cfg.Scopes), replications, len(cfg.Seeds), results.SummarizeTabs); err != nil {
			return results.Report{}, nil, err
		}
	}
	rep := results.Report{Experiment: "tabs", Config: cfg, Rows: rows, Runs: runs}
	setup := fmt.Sprintf("%s clock, seeds %s, %d edits per editor, claude think %s, human think %s, pause %s",
		cfg.Clock, sim.FormatSeeds(cfg.Seeds), cfg.Edits, cfg.ClaudeThink, cfg.HumanThink, cfg.Pause)
	return rep, cmp.finish(&rep, report.TabsTable(rows, cmp.shown()), reps, setup), nil
}
