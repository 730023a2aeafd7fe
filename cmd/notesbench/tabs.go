package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// tabsOptions holds the tabs command's flags.
type tabsOptions struct {
	app     *app
	env     envFlags
	out     outFlags
	scopes  string
	editing editingFlags
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
	opts.out.register(fs, minReplications)
	fs.StringVar(&opts.scopes, "scopes", "note,tab", "version scopes to run: note, tab (and none)")
	opts.editing.register(fs)
	return cmd
}

func (o *tabsOptions) config() (sim.TabsConfig, error) {
	env, err := o.env.env()
	if err != nil {
		return sim.TabsConfig{}, err
	}
	cfg := sim.TabsConfig{Env: env, Edits: o.editing.edits, Pause: o.editing.pause}
	if cfg.Scopes, err = parseList("--scopes", o.scopes, contract.ParseGuard); err != nil {
		return cfg, err
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

func runTabs(ctx context.Context, o *tabsOptions) error {
	defer o.env.close()
	return runExperiment(ctx, o.app, &o.out, "tabs", o.config, func(ctx context.Context, cfg sim.TabsConfig) (results.Report, []report.Table, error) {
		return tabsReport(ctx, o.app, cfg, o.out.replications)
	})
}

// tabsReport runs the tabs experiment, and its verdict replications when the
// parameters are the published ones, and returns the report and its tables.
func tabsReport(ctx context.Context, a *app, cfg sim.TabsConfig, replications int) (results.Report, []report.Table, error) {
	def := sim.DefaultTabs()
	cfg.Progress = progress(a, "tabs")
	return engineReport(ctx, a, engineSpec[sim.TabsConfig, results.TabsRow]{
		name:  "tabs",
		cfg:   cfg,
		env:   cfg.Env,
		cmp:   compareList("tabs", editingDiffs(cfg.Env, cfg.Edits, cfg.ClaudeThink, cfg.HumanThink, cfg.Pause, sim.DefaultRace(), def.Seeds)),
		setup: editingSetup(cfg.Env, cfg.Edits, cfg.ClaudeThink, cfg.HumanThink, cfg.Pause),
		modes: len(cfg.Scopes),
		run:   sim.Tabs,
		fold:  results.SummarizeTabs,
		table: report.TabsTable,
		replicate: func(env sim.Env) (sim.TabsConfig, int) {
			r := cfg
			r.Env = env
			return r, len(r.Scopes)
		},
	}, replications)
}
