package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/reproduce"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
	"github.com/spf13/cobra"
)

// reproduceOptions holds the reproduce command's flags.
type reproduceOptions struct {
	app *app
	// experiments are the registered experiments: reproduce runs them all,
	// or those --only names.
	experiments  []experiment.Descriptor
	quick        bool
	clock        string
	replications int
	out          string
	format       formatFlag
	only         string
	onlySet      bool // --only was given, perhaps empty
	// against names another reproduction's reproduced.json whose verdicts
	// these are compared with; other holds it, read before anything runs.
	against string
	other   *results.Reproduction
	shard   string
}

func newReproduceCmd(a *app, all []experiment.Descriptor, runF func(context.Context, *reproduceOptions) error) *cobra.Command {
	opts := &reproduceOptions{app: a, experiments: all}
	cmd := &cobra.Command{
		Use:   "reproduce",
		Short: "Run every experiment at its published parameters and judge every published figure",
		Long: `reproduce runs every experiment at the parameters of its published table and prints
each table with the published figures beside ours, then a verdict per figure and one
summary line. The race-engine experiments run on the virtual clock, so the output is
the same on any machine; --clock real also runs them once on the wall clock, beside.
With --out DIR it writes REPRODUCED.md and reproduced.json there, each whole or not
at all.

See docs/model.md (the reproduction) and docs/ci.md (shards).`,
		Example: cli.Examples([]string{
			"notesbench reproduce --quick                  # every experiment, 20 replications",
			"notesbench reproduce --out my-reproduction/   # REPRODUCED.md, reproduced.json, plots/",
			"notesbench reproduce --only race,tabs --clock real",
		}),
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.onlySet = cmd.Flags().Changed("only")
			if opts.quick && !cmd.Flags().Changed("replications") {
				opts.replications = 20
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runReproduce(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&opts.quick, "quick", false, "a fast pass: 20 replications instead of 100")
	fs.StringVar(&opts.clock, "clock", "virtual", "virtual, or real to also run the race experiments once on the wall clock")
	fs.IntVar(&opts.replications, "replications", 100, "replications behind the verdicts (20 with --quick unless given)")
	fs.StringVar(&opts.out, "out", "", "write REPRODUCED.md and reproduced.json into this folder")
	opts.format.register(cmd, tablesOrJSON)
	fs.StringVar(&opts.only, "only", "", "run only these experiments, comma-separated")
	fs.StringVar(&opts.shard, "shard", "", "run only shard K of N (K/N) of the reproduction's work; --out then names the shard's JSON file, for notesbench merge"+shardIndexUsage)
	fs.StringVar(&opts.against, "against", "", "compare the verdicts with those of another reproduction's reproduced.json (one made with --quick, say) and list the figures judged apart; with --shard, check that each unit the shard runs gives the result that reproduction recorded, and exit 1 when one does not")
	cli.CompleteFlag(cmd, "clock", false, sim.Clocks.Strings()...)
	cli.CompleteFlag(cmd, "only", true, experiment.Names(all)...)
	return cmd
}

// plan turns the flags into a reproduction, with usage errors naming the
// flag.
func (o *reproduceOptions) plan() (reproduce.Options, report.Format, error) {
	r := reproduce.Options{Experiments: o.experiments, Replications: o.replications}
	if err := r.Validate(); err != nil {
		return r, "", paramUsage(err)
	}
	clock, err := sim.Clocks.Parse(o.clock)
	if err != nil {
		return r, "", cli.UsageErr("--clock", err)
	}
	r.Real = clock == sim.ClockReal
	format, err := o.format.parse(o.app)
	if err != nil {
		return r, "", err
	}
	if o.onlySet {
		if r.Experiments, err = reproduce.Only(o.only, o.experiments); err != nil {
			return r, "", cli.UsageErr("--only", err)
		}
	}
	switch {
	case o.out != "" && o.shard != "":
		if err := checkResultFile("--out", o.out); err != nil {
			return r, "", err
		}
	case o.out != "":
		if err := report.CheckReproductionFolder(o.out); err != nil {
			return r, "", cli.UsageErr("--out", err)
		}
	}
	if o.against != "" && o.out != "" {
		out := o.out // a shard's JSON file
		if o.shard == "" {
			out = filepath.Join(o.out, report.ReproducedJSON) // --out's folder gets one of its own
		}
		if err := cli.NotInputs([]cli.File{{Flag: "--against", Path: o.against}}, cli.File{Flag: "--out", Path: out}); err != nil {
			return r, "", err
		}
	}
	if o.against != "" {
		if o.other, err = r.ReadAgainst(o.against, o.shard != ""); err != nil {
			return r, "", cli.UsageErr("--against", err)
		}
	}
	return r, format, nil
}

func runReproduce(ctx context.Context, o *reproduceOptions) (err error) {
	a := o.app
	r, format, err := o.plan()
	if err != nil {
		return err
	}
	tmp, err := a.scratch.Path()
	if err != nil {
		return err
	}
	if r.Target, err = backend.Open(ctx, backend.Spec{TempDir: tmp}); err != nil {
		return err
	}
	defer cli.Closing(o.app.stderr, "the store", r.Target.Close, &err)
	r.Machine = machine()
	r.Runs = experiment.Options{Version: notesbenchVersion(), Memory: backend.Memory(),
		Progress: func(what string) func(done, total int) { return progress(a, what) }}
	if a.stderrTTY {
		r.Step = func(name string) { fmt.Fprintf(a.stderr, "\rreproduce: %s…\033[K", name) }
	}
	if o.shard != "" {
		if r.Runs.Shard, err = results.ParseShard(o.shard); err != nil {
			return cli.UsageErr("--shard", err)
		}
	}
	rep, err := reproduce.Run(ctx, r, r.Command(o.quick, o.only))
	if err != nil {
		return err
	}
	if a.stderrTTY {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if rep.Shard != nil {
		return emitReproduceShard(a, format, rep.Shard, o.other, o.against, o.out)
	}
	return emitReproduction(a, format, rep, o.other, o.out)
}

// emitReproduceShard prints a shard of a reproduction — its JSON, or a line
// of what it ran — and writes its JSON to out. With other, the reproduction
// --against read from file, it then checks each unit the shard ran against
// the digest other recorded: a unit that gives another result, or a shard
// none of whose units can be checked, is a failure.
func emitReproduceShard(a *app, format report.Format, s *results.ReproduceShard, other *results.Reproduction, file, out string) error {
	run, err := reproduce.CheckShard(s, other, file)
	if err != nil {
		return cli.UsageErr("--against", err)
	}
	line := func(w io.Writer, _ report.Format, _ int) error {
		_, err := fmt.Fprintln(w, run.Line())
		return err
	}
	if err := report.Write(a.stdout, format, a.width, report.Output{Result: s, Text: line}); err != nil {
		return err
	}
	if err := writeResult(out, s); err != nil {
		return err
	}
	return run.Err()
}

// emitReproduction prints a reproduction, set beside another's verdicts
// (other, when not nil), and writes its folder when out names one.
func emitReproduction(a *app, format report.Format, rep *reproduce.Reproduced, other *results.Reproduction, out string) error {
	if other != nil {
		rep.Against(*other)
	}
	all, tables := rep.Record, rep.Tables
	if err := report.Write(a.stdout, format, a.width, report.ReproductionOutput(all, tables)); err != nil || out == "" {
		return err
	}
	plots := report.ReproductionPlots(all.Reports, rep.Latency)
	return cli.WriteWhole("--out", out, report.ReproducedMD, func(dir string) error { return report.WriteReproductionFolder(dir, all, tables, plots) })
}

// machine is the record of this machine and the SQLite engine a
// reproduction ran on, as reproduce and merge write it.
func machine() results.Machine {
	return reproduce.Machine(backend.EngineVersion(), backend.EngineDriver)
}
