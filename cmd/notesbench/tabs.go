package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
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
measures what a Note-wide version costs against per-tab versions. --timing,
--pause and --oversleep are race's.`,
		Args: noArgs,
		RunE: runner(opts, runF, runTabs),
	}
	fs := cmd.Flags()
	opts.env.register(fs, "1-3")
	opts.out.register(fs, results.MinReplications)
	fs.StringVar(&opts.scopes, "scopes", "note,tab", "version scopes to run: note, tab (and none)")
	opts.editing.register(cmd)
	return cmd
}

func (o *tabsOptions) config(ctx context.Context) (sim.Tabs, error) {
	env, err := o.env.env(ctx, o.app, "tabs")
	if err != nil {
		return sim.Tabs{}, err
	}
	cfg := sim.Tabs{Env: env}
	scopes, err := servedDefault(o.env.flags, env.Target, "scopes", o.scopes, func(v contract.Variant) string { return string(v.Guard) })
	if err != nil {
		return cfg, err
	}
	if cfg.Scopes, err = parseList("--scopes", scopes, contract.ParseGuard); err != nil {
		return cfg, err
	}
	if cfg.Editing, err = o.editing.parse(); err != nil {
		return cfg, err
	}
	return cfg, flagError(o.env.flags, cfg.Validate())
}

func runTabs(ctx context.Context, o *tabsOptions) error {
	defer o.env.close(o.app)
	o.out.history = &o.env.history
	return runExperiment(ctx, o.app, &o.out, "tabs", func() (sim.Experiment[results.TabsRow, results.RaceRun], error) {
		return o.config(ctx)
	})
}
