package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// sourcesOptions holds the sources command's flags.
type sourcesOptions struct {
	app      *app
	out      outFlags
	seeds    string
	sessions int
	turns    int
	pages    int
	cites    int
	drop     float64
	target   targetFlags
	history  historyFlags
}

func newSourcesCmd(a *app, runF func(context.Context, *sourcesOptions) error) *cobra.Command {
	opts := &sourcesOptions{app: a}
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "Which idempotency key to put on add_note_source: a UUID, the URL as written, or the normalized URL",
		Long: `sources runs research sessions, each on its own Note: every turn cites some of the
session's pages, each URL spelled one of seven ways (canonical, trailing slash, www.,
?utm_source=…, #fragment, http://, no scheme), and a share of the replies is lost
and resent with the same key. It counts saved sources and duplicates (a source whose
normalized URL the Note already holds) for three keys: a fresh UUID per citation,
a hash of the URL as written, and a hash of the Note ID and the normalized URL.`,
		Args: noArgs,
		RunE: runner(opts, runF, runSources),
	}
	fs := cmd.Flags()
	opts.out.register(fs, 20)
	def := sim.DefaultSources()
	fs.StringVar(&opts.seeds, "seeds", sim.FormatSeeds(def.Seeds), "seeds, as ranges and lists: 1-5,7,10-12")
	fs.IntVar(&opts.sessions, "sessions", def.Sessions, "research sessions, each on its own Note")
	fs.IntVar(&opts.turns, "turns", def.Turns, "turns per session")
	fs.IntVar(&opts.pages, "pages", def.Pages, "pages a session draws its citations from")
	fs.IntVar(&opts.cites, "cites", def.Cites, "pages cited per turn, without replacement")
	fs.Float64Var(&opts.drop, "drop", def.Drop, "probability that the reply to a call that succeeded is lost (0 to below 1)")
	opts.target.register(fs)
	opts.history.register(fs)
	return cmd
}

func (o *sourcesOptions) config(ctx context.Context) (sim.Sources, error) {
	cfg := sim.DefaultSources()
	seeds, err := sim.ParseSeeds(o.seeds)
	if err != nil {
		return cfg, usageErr("--seeds", err)
	}
	cfg.Seeds, cfg.Sessions, cfg.Turns, cfg.Pages, cfg.Cites, cfg.Drop = seeds, o.sessions, o.turns, o.pages, o.cites, o.drop
	if cfg.Target, err = o.target.openMemory(ctx); err != nil {
		return cfg, err
	}
	cfg.Store = o.target.storeName
	if cfg.History, err = o.history.start(o.app, "sources"); err != nil {
		return cfg, err
	}
	return cfg, flagError(o.out.flags, cfg.Validate())
}

func runSources(ctx context.Context, o *sourcesOptions) error {
	defer o.target.close(o.app)
	o.out.history = &o.history
	return runExperiment(ctx, o.app, &o.out, "sources", func() (sim.Experiment[results.SourcesRow, results.SourcesRun], error) {
		return o.config(ctx)
	})
}
