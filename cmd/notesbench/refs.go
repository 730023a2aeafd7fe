package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// refsOptions holds the refs command's flags.
type refsOptions struct {
	app      *app
	out      outFlags
	k        string
	trials   int
	seeds    string
	editsMax int
	mix      string
	parallel int
	target   targetFlags
}

func newRefsCmd(a *app, runF func(context.Context, *refsOptions) error) *cobra.Command {
	opts := &refsOptions{app: a}
	cmd := &cobra.Command{
		Use:   "refs",
		Short: "How an agent should refer to a tab: by position, type, label or ID",
		Long: `refs gives a Note K Slides tabs with distinct labels. In each trial the agent lists
the tabs, picks a deck and keeps a reference to it (its position in the bar, its type,
its label or its ID); the person then moves, renames or adds tabs; the agent lists
again, resolves its reference and writes to what it found with the fresh version.
It counts correct, wrong-deck and not-found resolutions, and how many of those writes
the version check let through.`,
		Args: noArgs,
		RunE: runner(opts, runF, runRefs),
	}
	fs := cmd.Flags()
	opts.out.register(fs, noReplications) // each fraction is judged against its sampling spread over the trials
	fs.StringVar(&opts.k, "k", "2,5", "numbers of decks in the Note, one table block each (1 to 5)")
	fs.IntVar(&opts.trials, "trials", 10000, "trials per K")
	fs.StringVar(&opts.seeds, "seeds", "7", "the seed of the run (one)")
	fs.IntVar(&opts.editsMax, "edits-max", 2, "the person makes 0 to this many edits per trial, uniformly")
	fs.StringVar(&opts.mix, "mix", sim.DefaultRefsMix().String(), "shares of the person's edits: move, rename, add")
	opts.target.register(fs)
	fs.IntVar(&opts.parallel, "parallel", 0, "workers, each with a store of its own (0: one per CPU); results do not depend on it")
	return cmd
}

func (o *refsOptions) config(ctx context.Context) (sim.Refs, error) {
	cfg := sim.Refs{Trials: o.trials, EditsMax: o.editsMax, Parallel: o.parallel}
	for _, s := range strings.Split(o.k, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return cfg, usagef("--k", "%q is not a whole number", s)
		}
		cfg.K = append(cfg.K, k)
	}
	seeds, err := sim.ParseSeeds(o.seeds)
	if err != nil {
		return cfg, usageErr("--seeds", err)
	}
	if len(seeds) != 1 {
		return cfg, usagef("--seeds", "refs takes one seed, not %d", len(seeds))
	}
	cfg.Seed = seeds[0]
	if cfg.Mix, err = sim.ParseMix(o.mix); err != nil {
		return cfg, usageErr("--mix", err)
	}
	if cfg.Target, err = o.target.openMemory(ctx); err != nil {
		return cfg, err
	}
	cfg.Store = o.target.storeName
	if p, ok := cfg.Target.(contract.PersonOffer); ok {
		if err := p.RequirePerson("refs"); err != nil {
			return cfg, reachError{err}
		}
	}
	return cfg, flagError(o.out.flags, cfg.Validate())
}

func runRefs(ctx context.Context, o *refsOptions) error {
	defer o.target.close(o.app)
	return runExperiment(ctx, o.app, &o.out, "refs", func() (sim.Experiment[results.RefsRow, struct{}], error) {
		return o.config(ctx)
	})
}
