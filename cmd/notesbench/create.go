package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// createOptions holds the create command's flags.
type createOptions struct {
	app   *app
	out   outFlags
	seeds string
	tabs  int
	drop  float64
	table string
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCreate(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.out.register(fs, 100)
	fs.StringVar(&opts.seeds, "seeds", "1-3", "seeds, as ranges and lists: 1-5,7,10-12")
	fs.IntVar(&opts.tabs, "tabs", 50, "Sheet tabs the client means to create per run")
	fs.Float64Var(&opts.drop, "drop", 0.3, "probability that the reply to a call that succeeded is lost (0 to below 1)")
	fs.StringVar(&opts.table, "table", sim.CreateBothTables, "which table to run: a, b or both")
	return cmd
}

func (o *createOptions) config() (sim.CreateConfig, error) {
	cfg := sim.DefaultCreateConfig()
	cfg.Target = backend.Memory()
	seeds, err := sim.ParseSeeds(o.seeds)
	if err != nil {
		return cfg, usageErr("--seeds", err)
	}
	cfg.Seeds, cfg.Tabs, cfg.Drop, cfg.Table = seeds, o.tabs, o.drop, o.table
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

func runCreate(ctx context.Context, o *createOptions) error {
	return runExperiment(ctx, o.app, &o.out, "create", o.config, func(ctx context.Context, cfg sim.CreateConfig) (results.Report, []report.Table, error) {
		return createReport(ctx, cfg, o.out.replications)
	})
}

// createReport runs the create experiment and, when the parameters are the
// published ones, judges each published per-seed figure against the spread of
// single runs over replications·3 seeds.
func createReport(ctx context.Context, cfg sim.CreateConfig, replications int) (results.Report, []report.Table, error) {
	def := sim.DefaultCreateConfig()
	cmp := compareWith("create",
		differ("seeds", sim.FormatSeeds(cfg.Seeds), sim.FormatSeeds(def.Seeds)),
		differ("tabs", cfg.Tabs, def.Tabs),
		differ("drop", cfg.Drop, def.Drop))
	res, err := sim.Create(ctx, cfg)
	if err != nil {
		return results.Report{}, nil, err
	}
	var pool []map[string]any
	if cmp.published() && replications > 0 {
		rcfg := cfg
		rcfg.Seeds = seedsUpTo(replications * len(cfg.Seeds))
		rres, err := sim.Create(ctx, rcfg)
		if err != nil {
			return results.Report{}, nil, err
		}
		if pool, err = results.RowFields(rres.Rows); err != nil {
			return results.Report{}, nil, err
		}
	}
	rep := results.Report{Experiment: "create", Config: cfg, Rows: res.Rows, Runs: res.Runs}
	setup := fmt.Sprintf("virtual clock, seeds %s, %d tabs per run, %s of successful replies lost, in-memory store",
		sim.FormatSeeds(cfg.Seeds), cfg.Tabs, report.Pct(cfg.Drop))
	tables := report.CreateTables(res.Rows, cmp.shown())
	out := cmp.finishWith(&rep, tables[0], setup, func() []results.Verdict {
		if pool == nil {
			return nil
		}
		rep.Replications = replications
		// One pool of single runs: each published seed is one draw from it.
		return results.CompareReplications(cmp.exp, [][]map[string]any{pool}, nil, results.DefaultMass, nil)
	})
	if len(tables) > 1 { // table B goes right after table A, before the verdicts
		tables[1].Notes = []string{"ours: " + setup}
		if cmp.published() { // table B's source notes go under table B
			bNotes := report.SourceNotes(&cmp.exp.Tables[1])
			out[0].Notes = slices.DeleteFunc(out[0].Notes, func(n string) bool { return slices.Contains(bNotes, n) })
			tables[1].Notes = append(tables[1].Notes, bNotes...)
		}
		out = append(out[:1], append([]report.Table{tables[1]}, out[1:]...)...)
	}
	if len(rep.Verdicts) > 0 {
		out[len(out)-1].Title = fmt.Sprintf("Verdicts: each published seed against the single runs of %d seeds", replications*len(cfg.Seeds))
	}
	return rep, out, nil
}

// seedsUpTo returns the seeds 1 to n.
func seedsUpTo(n int) []uint64 {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}
