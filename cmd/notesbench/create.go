package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// createOptions holds the create command's flags.
type createOptions struct {
	app     *app
	out     outFlags
	seeds   string
	tabs    int
	drop    float64
	table   string
	order   string
	target  targetFlags
	history historyFlags
}

func newCreateCmd(a *app, runF func(context.Context, *createOptions) error) *cobra.Command {
	opts := &createOptions{app: a}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Idempotency keys on creates: duplicate tabs after lost replies",
		Long: `create has a client make Sheet tabs with create_note_tab while a share of the
replies to calls that succeeded are lost after the server committed, as a host
timeout looks; the client then resends. Table A: the server checks the key first,
and the client re-lists for the fresh version before resending, with a new key or
the same one. Table B: the server checks the key first or the version first, and
the resend carries the version from before the lost commit; the client takes a new
key every call, keeps it on a resend, or keeps it until a conflict makes it re-list.
Duplicates are counted in the store.`,
		Args: noArgs,
		RunE: runner(opts, runF, runCreate),
	}
	fs := cmd.Flags()
	opts.out.register(fs, 100)
	fs.StringVar(&opts.seeds, "seeds", "1-3", "seeds, as ranges and lists: 1-5,7,10-12")
	fs.IntVar(&opts.tabs, "tabs", 50, "Sheet tabs the client means to create per run")
	fs.Float64Var(&opts.drop, "drop", 0.3, "probability that the reply to a call that succeeded is lost (0 to below 1)")
	fs.StringVar(&opts.table, "table", sim.CreateBothTables, "which table to run: a, b or both")
	fs.StringVar(&opts.order, "order", "", "only the rows of this server order: key-first or version-first (a server checks in one; default: what it says it serves)")
	opts.target.register(fs)
	opts.history.register(fs)
	return cmd
}

func (o *createOptions) config(ctx context.Context) (sim.Create, error) {
	cfg := sim.DefaultCreate()
	seeds, err := sim.ParseSeeds(o.seeds)
	if err != nil {
		return cfg, usageErr("--seeds", err)
	}
	cfg.Seeds, cfg.Tabs, cfg.Drop, cfg.Table = seeds, o.tabs, o.drop, o.table
	if cfg.Target, err = o.target.openMemory(ctx); err != nil {
		return cfg, err
	}
	cfg.Store = o.target.storeName
	if cfg.History, err = o.history.start(o.app, "create"); err != nil {
		return cfg, err
	}
	order, err := servedDefault(o.target.flags, cfg.Target, "order", o.order, func(v contract.Variant) string { return string(v.Order) })
	if err != nil {
		return cfg, err
	}
	cfg.Order = contract.Order(order)
	return cfg, flagError(o.out.flags, cfg.Validate())
}

func runCreate(ctx context.Context, o *createOptions) error {
	defer o.target.close(o.app)
	o.out.history = &o.history
	return runExperiment(ctx, o.app, &o.out, "create", func() (sim.Experiment[results.CreateRow, results.CreateRun], error) {
		return o.config(ctx)
	})
}
