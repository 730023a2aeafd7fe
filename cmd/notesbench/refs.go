package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/report"
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRefs(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.out.register(fs, noReplications) // each fraction is judged against its sampling spread over the trials
	fs.StringVar(&opts.k, "k", "2,5", "numbers of decks in the Note, one table block each (1 to 5)")
	fs.IntVar(&opts.trials, "trials", 10000, "trials per K")
	fs.StringVar(&opts.seeds, "seeds", "7", "the seed of the run (one)")
	fs.IntVar(&opts.editsMax, "edits-max", 2, "the person makes 0 to this many edits per trial, uniformly")
	fs.StringVar(&opts.mix, "mix", sim.DefaultRefsMix().String(), "shares of the person's edits: move, rename, add")
	fs.IntVar(&opts.parallel, "parallel", 0, "workers, each with a store of its own (0: one per CPU); results do not depend on it")
	return cmd
}

func (o *refsOptions) config() (sim.RefsConfig, error) {
	cfg := sim.RefsConfig{Trials: o.trials, EditsMax: o.editsMax, Parallel: o.parallel, Target: backend.Memory()}
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
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

func runRefs(ctx context.Context, o *refsOptions) error {
	return runExperiment(ctx, o.app, &o.out, "refs", o.config, func(ctx context.Context, cfg sim.RefsConfig) (results.Report, []report.Table, error) {
		return refsReport(ctx, cfg)
	})
}

// refsReport runs the refs experiment and judges each published fraction against
// the sampling spread of ours.
func refsReport(ctx context.Context, cfg sim.RefsConfig) (results.Report, []report.Table, error) {
	def := sim.DefaultRefsConfig()
	cmp := compareWith("refs",
		differ("trials", cfg.Trials, def.Trials),
		differ("seed", cfg.Seed, def.Seed),
		differ("edits-max", cfg.EditsMax, def.EditsMax),
		differ("mix", cfg.Mix, def.Mix))
	rows, err := sim.RunRefs(ctx, cfg)
	if err != nil {
		return results.Report{}, nil, err
	}
	// refs is one run over all trials: its rows are that run, so runs stays empty.
	rep := results.Report{Experiment: "refs", Config: cfg, Rows: rows, Runs: []any{}}
	setup := fmt.Sprintf("seed %d, %d trials per K, 0 to %d person edits per trial (%s), in-memory stores",
		cfg.Seed, cfg.Trials, cfg.EditsMax, cfg.Mix)
	tables := cmp.finishWith(&rep, report.RefsTable(rows, cmp.shown()), setup, func() []results.Verdict {
		var out []results.Verdict
		for _, r := range rows {
			pub, ok := cmp.exp.Match(map[string]string{"k": strconv.Itoa(r.K), "ref": r.Ref})
			if !ok {
				continue
			}
			label := cmp.exp.Label(pub)
			for _, f := range []struct {
				name string
				p    float64
				n    int
			}{
				{"correct", r.Correct, r.Trials},
				{"wrong", r.Wrong, r.Trials},
				{"not_found", r.NotFound, r.Trials},
			} {
				if fig, ok := pub.Figure(f.name); ok {
					out = append(out, results.JudgeProportion(f.name, label, f.p, f.n, fig, results.DefaultMass))
				}
			}
		}
		return out
	})
	tables[0].Notes = append(tables[0].Notes,
		"wrong deck: the reference resolved to another tab than the target — another deck, or, for a position, a fixed tab",
		"writes passing the version check are counted over the writes the check judged: a slide_add to a fixed tab is refused before any version check and left out",
		"the version check passes every write by construction, here as in the published model: nothing writes between the agent's listing and its write; it is shown, not judged")
	if len(tables) > 1 {
		tables[1].Title = "Verdicts: published fractions against the 99 % sampling interval of ours (Wilson, over the trials)"
	}
	return rep, tables, nil
}
