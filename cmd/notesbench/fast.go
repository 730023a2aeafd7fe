package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// fastOptions holds the fast command's flags.
type fastOptions struct {
	app     *app
	env     envFlags
	out     outFlags
	formats string
	edits   int
}

func newFastCmd(a *app, runF func(context.Context, *fastOptions) error) *cobra.Command {
	opts := &fastOptions{app: a}
	cmd := &cobra.Command{
		Use:   "fast",
		Short: "Lost updates from millisecond timestamps used as versions (no think time)",
		Long: `fast drops the think time and the pause to zero, so the two editors commit as fast
as the store takes their writes, and compares version formats: a commit time cut to
milliseconds (two commits in one millisecond share a version, and a stale write
passes), microseconds plus a random suffix, and a counter.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runFast(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.env.register(fs, "1-5", "real")
	opts.out.register(fs, 5) // each replication is 20,000 edits per format
	fs.StringVar(&opts.formats, "formats", "ms,us-suffix,counter", "version formats to run: ms, us-suffix, counter")
	fs.IntVar(&opts.edits, "edits", 2000, "edits per editor per run")
	return cmd
}

func (o *fastOptions) config() (sim.FastConfig, error) {
	env, err := o.env.env()
	if err != nil {
		return sim.FastConfig{}, err
	}
	cfg := sim.FastConfig{Env: env, Edits: o.edits}
	if cfg.Formats, err = parseList("--formats", o.formats, contract.ParseVersionFormat); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	o.out.setClock(cfg.Clock)
	return cfg, nil
}

func runFast(ctx context.Context, o *fastOptions) error {
	defer o.env.close()
	return runExperiment(ctx, o.app, &o.out, "fast", o.config, func(ctx context.Context, cfg sim.FastConfig) (results.Report, []report.Table, error) {
		return fastReport(ctx, o.app, cfg, o.out.replications)
	})
}

// fastReport runs the fast experiment, and its verdict replications when the
// parameters are the published ones, and returns the report and its tables.
func fastReport(ctx context.Context, a *app, cfg sim.FastConfig, replications int) (results.Report, []report.Table, error) {
	def := sim.DefaultFast()
	cfg.Progress = progress(a, "fast")
	setup := fmt.Sprintf("%s, seeds %s, %d edits per editor, no think time, no pause, guard note, reapply",
		clockSetup(cfg.Env), sim.FormatSeeds(cfg.Seeds), cfg.Edits)
	cmp := compareList("fast", append(envDiffs(cfg.Env),
		differ("seeds", sim.FormatSeeds(cfg.Seeds), sim.FormatSeeds(def.Seeds)),
		differ("edits", cfg.Edits, def.Edits)))
	return engineReport(ctx, a, engineSpec[sim.FastConfig, results.FastRow]{
		name:  "fast",
		cfg:   cfg,
		env:   cfg.Env,
		cmp:   cmp,
		setup: setup,
		modes: len(cfg.Formats),
		run:   sim.Fast,
		fold:  results.SummarizeFast,
		table: report.FastTable,
		// Only the published formats are replicated: a counter has no published row.
		replicate: func(env sim.Env) (sim.FastConfig, int) {
			r := cfg
			r.Env = env
			r.Formats = publishedFormats(cmp.exp, cfg.Formats)
			return r, len(r.Formats)
		},
	}, replications)
}

// publishedFormats keeps the formats that have a published row.
func publishedFormats(exp *results.Experiment, formats []contract.VersionFormat) []contract.VersionFormat {
	var out []contract.VersionFormat
	for _, f := range formats {
		if _, ok := exp.Match(map[string]string{"version_format": string(f)}); ok {
			out = append(out, f)
		}
	}
	return out
}
