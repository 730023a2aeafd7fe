package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/report"
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runOutline(cmd.Context(), opts)
		},
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

func (o *outlineOptions) config() (sim.OutlineConfig, error) {
	cfg := sim.OutlineConfig{Slides: o.slides, Decks: o.decks, WindowS: o.window.Seconds(), SavesPerMinute: o.savesPerMinute, Target: backend.Memory()}
	seeds, err := sim.ParseSeeds(o.seeds)
	if err != nil {
		return cfg, usageErr("--seeds", err)
	}
	if len(seeds) != 1 {
		return cfg, usagef("--seeds", "outline takes one seed, not %d", len(seeds))
	}
	cfg.Seed = seeds[0]
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

func runOutline(ctx context.Context, o *outlineOptions) error {
	return runExperiment(ctx, o.app, &o.out, "outline", o.config, func(ctx context.Context, cfg sim.OutlineConfig) (results.Report, []report.Table, error) {
		return outlineReport(ctx, cfg, o.out.replications)
	})
}

// outlineReport runs the outline experiment, and as many replications of it
// with other seeds as asked when the parameters are the published ones.
func outlineReport(ctx context.Context, cfg sim.OutlineConfig, replications int) (results.Report, []report.Table, error) {
	def := sim.DefaultOutlineConfig()
	cmp := compareWith("outline",
		differ("slides", cfg.Slides, def.Slides),
		differ("decks", cfg.Decks, def.Decks),
		differ("window", time.Duration(cfg.WindowS*float64(time.Second)), time.Duration(def.WindowS*float64(time.Second))),
		differ("saves-per-minute", cfg.SavesPerMinute, def.SavesPerMinute))
	// Our request bytes come from our slide texts: they are compared as a ratio.
	cmp.ratioOnly = func(figure string) bool { return figure == "request_bytes" }
	rows, err := sim.RunOutline(ctx, cfg)
	if err != nil {
		return results.Report{}, nil, err
	}
	var reps [][]map[string]any
	if cmp.published() {
		for r := 0; r < replications; r++ {
			rcfg := cfg
			rcfg.Seed = uint64(r + 1)
			rrows, err := sim.RunOutline(ctx, rcfg)
			if err != nil {
				return results.Report{}, nil, err
			}
			fields, err := results.RowFields(rrows)
			if err != nil {
				return results.Report{}, nil, err
			}
			reps = append(reps, fields)
		}
	}
	rep := results.Report{Experiment: "outline", Config: cfg, Rows: rows, Runs: []any{}}
	setup := fmt.Sprintf("seed %d, %d-slide deck, %d decks, %s between read and write, %s person saves per minute; request bytes are those of our slide texts",
		cfg.Seed, cfg.Slides, cfg.Decks, time.Duration(cfg.WindowS*float64(time.Second)), report.Num(cfg.SavesPerMinute))
	return rep, cmp.finish(&rep, report.OutlineTable(rows, cmp.shown()), reps, nil, setup), nil
}
