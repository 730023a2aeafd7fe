package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// outlineOptions holds the outline command's flags.
type outlineOptions struct {
	app            *app
	out            outFlags
	slides         int
	decks          int
	window         time.Duration
	savesPerMinute float64
	seeds          string
}

func newOutlineCmd(a *app, runF func(context.Context, *outlineOptions) error) *cobra.Command {
	opts := &outlineOptions{app: a}
	cmd := &cobra.Command{
		Use:   "outline",
		Short: "One create_note_tab with an outline, or an empty create and one slide_add per slide",
		Long: `outline builds a deck both ways, validates every request against the schema and
sends it to the store, and counts writes and request bytes (the JSON arguments as
sent; they depend on our slide texts). Conflicts per deck come from a model: each write
comes --window after the agent's read, and the person saves anywhere in the Note as a
Poisson process; the exact expectation writes × (1 − e^(−window·rate)) is printed
beside the simulated mean. Decks over 20 slides take several outline calls.`,
		Args: noArgs,
		RunE: runner(opts, runF, runOutline),
	}
	fs := cmd.Flags()
	opts.out.register(fs, 200)
	fs.IntVar(&opts.slides, "slides", 12, "slides in the deck")
	fs.IntVar(&opts.decks, "decks", 2000, "simulated decks for the conflict figures")
	fs.DurationVar(&opts.window, "window", 4*time.Second, "time between the agent's read and each write")
	fs.Float64Var(&opts.savesPerMinute, "saves-per-minute", 1, "mean rate of the person's saves anywhere in the Note")
	fs.StringVar(&opts.seeds, "seeds", "1", "the seed of the simulated saves (one)")
	return cmd
}

func (o *outlineOptions) config() (sim.Outline, error) {
	cfg := sim.Outline{Slides: o.slides, Decks: o.decks, WindowS: o.window.Seconds(), SavesPerMinute: o.savesPerMinute, Target: backend.Memory()}
	seeds, err := sim.ParseSeeds(o.seeds)
	if err != nil {
		return cfg, usageErr("--seeds", err)
	}
	if len(seeds) != 1 {
		return cfg, usagef("--seeds", "outline takes one seed, not %d", len(seeds))
	}
	cfg.Seed = seeds[0]
	return cfg, flagError(o.out.flags, cfg.Validate())
}

func runOutline(ctx context.Context, o *outlineOptions) error {
	return runExperiment(ctx, o.app, &o.out, "outline", func() (sim.Experiment[results.OutlineRow, struct{}], error) {
		return o.config()
	})
}
