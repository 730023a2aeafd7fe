package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/reproduce"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// mergeOptions holds the merge command's flags and arguments.
type mergeOptions struct {
	app         *app
	experiments []experiment.Descriptor
	files       []string
	out         outFlags
}

func newMergeCmd(a *app, experiments []experiment.Descriptor, runF func(context.Context, *mergeOptions) error) *cobra.Command {
	opts := &mergeOptions{app: a, experiments: experiments}
	cmd := &cobra.Command{
		Use:   "merge FILE|FOLDER...",
		Short: "Put the shards of a run (--shard K/N) together into the result of the whole run",
		Long: `merge reads the results of every shard of one run (each written with --shard K/N
and --out or --format json) and prints the result of the whole run: the same rows,
runs, verdicts and tables as the run without shards, in any format, checked against
a baseline with --baseline. Every shard is needed, each once, all of one run (the
same experiment, parameters and notesbench version); how each ran (--parallel,
--db, the machine) may differ.

Given histories (written with --history) instead, it writes them as one history,
for notesbench check: each history once, each run recorded whole by one process,
no run in two.

A folder stands for the .json and .jsonl files in it, as a Job's pods leave
their shards on a shared volume: not its hidden files, its folders, nor the
file --out or --update-baseline writes.

Input that cannot be merged (a file that is no shard or history, a shard
missing or given twice, shards of different runs), and an --out that is one
of the inputs, are exit 2, nothing written; a merge that fails otherwise is
exit 1.

See docs/ci.md (shards and merge).`,
		Example: cli.Examples([]string{
			"notesbench race --clock virtual --shard 1/2 --out s1.json   # on one machine",
			"notesbench race --clock virtual --shard 2/2 --out s2.json   # on another",
			"notesbench merge s1.json s2.json --baseline ci/race.json",
			"notesbench merge --out all.jsonl h1.jsonl h2.jsonl && notesbench check all.jsonl",
			"notesbench merge --out /results/merged.json /results   # every shard in /results",
		}),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usage(errors.New("merge needs the files of the shards"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMerge(cmd.Context(), opts)
		},
	}
	opts.out.register(cmd, experiment.Info{Replications: experiment.NoReplications, Baseline: true}, withCSV|report.ContentGoBench)
	return cmd
}

func runMerge(ctx context.Context, o *mergeOptions) error {
	a := o.app
	files, err := experiment.MergeFiles(o.files, o.out.out, o.out.updateBaseline)
	if err != nil {
		return mergeError(err)
	}
	if err := cli.NotInputs(cli.Arguments(files), cli.File{Flag: "--out", Path: o.out.out}, cli.File{Flag: "--update-baseline", Path: o.out.updateBaseline}); err != nil {
		return err
	}
	in, err := experiment.ReadMergeInputs(files)
	if err != nil {
		return mergeError(err)
	}
	switch in.Kind {
	case experiment.MergeHistories:
		return mergeHistories(ctx, o, in)
	case experiment.MergeReproduction:
		return mergeReproduction(o, in)
	}
	shards, err := results.ReadShards(in.Files, in.Data, sim.FormatSeeds)
	if err != nil {
		return cli.Usage(err)
	}
	// The formats the experiment prints: gobench only for one that prints
	// Go benchmark lines, as its own command has it.
	if d, err := experiment.Lookup(o.experiments, shards.Experiment()); err == nil && !d.Info().GoBench {
		o.out.format.holds &^= report.ContentGoBench
	}
	format, err := o.out.check(a, shards.Experiment())
	if err != nil {
		return err
	}
	if err := cli.DistinctOutputs(cli.File{Flag: "--out", Path: o.out.out}, cli.File{Flag: "--update-baseline", Path: o.out.updateBaseline}); err != nil {
		return err
	}
	out, err := experiment.Merge(o.experiments, shards, notesbenchVersion())
	if err != nil {
		return mergeError(err)
	}
	o.out.realClock = out.RealClock
	if err := o.out.checkParameters(out.Report.Config); err != nil {
		return err
	}
	return o.out.emit(a, format, out)
}

// mergeHistories writes the histories in as one, to --out or stdout.
func mergeHistories(ctx context.Context, o *mergeOptions, in *experiment.MergeInputs) error {
	if o.out.baseline != "" || o.out.updateBaseline != "" || o.out.format.name != "" {
		return cli.Usagef("--format", "histories merge into one history: only --out applies")
	}
	if o.out.out == "" {
		return historyError(history.Merge(ctx, o.app.stdout, in.Files, in.Data))
	}
	if err := checkHistoryWritable(o.out.out); err != nil {
		return cli.UsageErr("--out", err)
	}
	return historyError(atomicfile.Write(o.out.out, 0o644, func(w io.Writer) error { return history.Merge(ctx, w, in.Files, in.Data) }))
}

// mergeError is an error of reading a merge's inputs or of merging them:
// bad input (a *results.MergeError: a file that does not read or is no
// shard, a shard missing, shards of different runs) is a usage error;
// anything else is the merge failing.
func mergeError(err error) error {
	var me *results.MergeError
	if errors.As(err, &me) {
		return cli.Usage(err)
	}
	return err
}

// historyError is mergeError for history.Merge, whose bad input is a
// *history.InputError, said as it is (not as a failure to write --out).
func historyError(err error) error {
	var ie *history.InputError
	if errors.As(err, &ie) {
		return cli.Usage(ie)
	}
	return err
}

// mergeReproduction puts the shards of a reproduction in together and
// prints it as reproduce does; --out names the reproduction's folder.
func mergeReproduction(o *mergeOptions, in *experiment.MergeInputs) error {
	a := o.app
	if o.out.baseline != "" || o.out.updateBaseline != "" {
		return cli.Usagef("--baseline", "a reproduction has no baseline: merge its shards without it")
	}
	format, err := formatFlag{o.out.format.name, tablesOrJSON}.parse(a)
	if err != nil {
		return err
	}
	if o.out.out != "" {
		if err := report.CheckReproductionFolder(o.out.out); err != nil {
			return cli.UsageErr("--out", err)
		}
	}
	rep, err := reproduce.Merge(o.experiments, in.Files, in.Data, notesbenchVersion(), machine())
	if err != nil {
		return mergeError(err)
	}
	return emitReproduction(a, format, rep, nil, o.out.out)
}
