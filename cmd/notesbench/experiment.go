package main

import (
	"context"
	"errors"
	"time"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
	"github.com/spf13/cobra"
)

// experimentOptions holds an experiment command's flags: the experiment's
// own parameters, bound to its configuration, and the flags every experiment
// shares — what serves the contract, the history, the output.
type experimentOptions struct {
	app     *app
	inst    experiment.Instance
	params  map[string]*paramFlag
	target  targetFlags
	history historyFlags
	out     outFlags
	shard   string
	startAt string
}

// paramFlag is a parameter as a flag: the value given is kept as written
// and set into the configuration after every flag is parsed, so that a bad
// value is one line naming the flag, in notesbench's words.
type paramFlag struct {
	p   experiment.Param
	raw string
}

func (f *paramFlag) String() string     { return f.raw }
func (f *paramFlag) Set(s string) error { f.raw = s; return nil }
func (f *paramFlag) Type() string       { return f.p.Type }

// newExperimentCmd returns the command of the experiment d declares: its
// parameters as flags, the shared flags its Info asks for, its help and the
// completion of every value it takes. Nothing here is particular to one
// experiment.
func newExperimentCmd(a *app, d experiment.Descriptor, runF func(context.Context, *experimentOptions) error) *cobra.Command {
	info := d.Info()
	opts := &experimentOptions{app: a, inst: d.New(), params: map[string]*paramFlag{}}
	cmd := &cobra.Command{
		Use:     info.Name,
		Short:   info.Short,
		Long:    info.Long,
		Example: cli.Examples(info.Examples),
		Args:    cli.NoArgs,
		RunE:    cli.Runner(opts, runF, runExperiment),
	}
	fs := cmd.Flags()
	for _, p := range opts.inst.Params() {
		pf := &paramFlag{p: p, raw: p.String()}
		opts.params[p.Name] = pf
		f := fs.VarPF(pf, p.Name, "", p.Usage)
		if p.Type == "bool" {
			f.NoOptDefVal = "true"
		}
		if len(p.Values) > 0 {
			cli.CompleteFlag(cmd, p.Name, p.List, p.Values...)
		}
	}
	holds := withCSV
	if info.GoBench {
		holds |= report.ContentGoBench
	}
	opts.out.register(cmd, info, holds)
	if info.Target {
		opts.target.register(fs, info.Faults)
	}
	if info.History {
		opts.history.register(fs)
	}
	fs.StringVar(&opts.shard, "shard", "", "run only shard K of N (K/N, such as 2/4) of the work, for notesbench merge to put together"+shardIndexUsage)
	fs.StringVar(&opts.startAt, "start-at", "", "start the runs at this time (RFC 3339, such as 2026-12-01T14:30:00Z), once everything is ready: a barrier for processes on several hosts")
	return cmd
}

// shardIndexUsage ends the help of every --shard: its form by index.
const shardIndexUsage = "; or index=I/N, the shard by its index from 0 (index=1/4 is 2/4), " +
	"as a Kubernetes Indexed Job numbers its pods: index=$(JOB_COMPLETION_INDEX)/N in the Job's args"

// given reports whether the flag called name was given on the command line.
func (o *experimentOptions) given(name string) bool {
	f := o.out.flags.Lookup(name)
	return f != nil && f.Changed
}

// configure sets the parameters given into the configuration, completes
// it, and opens what the runs go to: every error is one line naming the
// flag, before anything runs. o.target.close releases what it opened, also
// after an error.
func (o *experimentOptions) configure(ctx context.Context) error {
	info := o.inst.Info()
	for _, p := range o.inst.Params() {
		if o.given(p.Name) {
			if err := p.Set(o.params[p.Name].raw); err != nil {
				return cli.UsageErr("--"+p.Name, err)
			}
		}
	}
	if err := o.inst.Finish(o.given); err != nil {
		return o.usage(err)
	}
	if k, ok := o.inst.Clock(); ok && k == sim.ClockVirtual && o.target.remote() {
		return cli.Usagef("--clock", "the virtual clock cannot drive %s: a server commits on its own clock (use --clock real)", o.target.target)
	}
	tmp, err := o.app.scratch.Path()
	if err != nil {
		return err
	}
	st := o.inst.Storage()
	if st.DBDir != "" {
		if st.InMemory {
			return cli.Usagef("--db", "cannot keep databases with --memory")
		}
		if err := atomicfile.CheckFolder(st.DBDir); err != nil {
			return cli.UsageErr("--db", err)
		}
	}
	spec := backend.Spec{TempDir: tmp, DBDir: st.DBDir, InMemory: st.InMemory, Synchronous: string(st.Synchronous)}
	rt := sim.Runtime{Progress: progress(o.app, info.Name)}
	var settings sim.TargetSettings

	switch {
	case info.Target:
		if err := o.target.checkMaxErrors(); err != nil {
			return err
		}
		settings.MaxErrors = o.target.maxErrors
		if rt.Target, err = o.target.open(ctx, spec, info.InMemory); err != nil {
			return err
		}
		settings.Store = o.target.storeName
		rt.Peer = backend.Peer(rt.Target)
		if o.target.remote() {
			settings.TargetName, settings.Wire = o.target.name(), wireOf(rt.Target)
			settings.Nemesis = o.target.nemesis()
		}
	case info.InMemory:
		rt.Target = backend.Memory()
	}
	if c, ok := rt.Target.(contract.Capable); ok && len(info.Needs) > 0 {
		if err := c.Require(info.Name, info.Needs...); err != nil {
			return cli.ReachError{Err: err}
		}
	}
	if info.History {
		if rt.History, err = o.history.start(o.app, info.Name); err != nil {
			return err
		}
	}
	if err := o.inst.Use(settings, rt, o.given); err != nil {
		return o.usage(err)
	}
	return o.usage(o.inst.Validate())
}

// usage turns an experiment's errors about its parameters or fields into
// usage errors naming the flag; other errors pass unchanged.
func (o *experimentOptions) usage(err error) error {
	if perr := paramUsage(err); perr != err {
		return perr
	}
	return cli.FlagError(o.out.flags, err)
}

// paramUsage turns an error about a parameter (*experiment.ParamError) into
// a usage error naming its flag; other errors pass unchanged.
func paramUsage(err error) error {
	var pe *experiment.ParamError
	if errors.As(err, &pe) {
		return cli.UsageErr("--"+pe.Param, pe.Err)
	}
	return err
}

// runExperiment is every experiment command: check the output flags and
// configure the experiment (both before anything runs, so that bad input
// costs nothing), run it with its verdicts, and print.
func runExperiment(ctx context.Context, o *experimentOptions) (err error) {
	info := o.inst.Info()
	defer cli.Closing(o.app.stderr, "the target", func() error { return o.target.close(o.app) }, &err)
	format, err := o.out.check(o.app, info.Name)
	if err != nil {
		return err
	}
	var start time.Time
	if o.startAt != "" {
		if start, err = experiment.ParseStart(o.startAt, time.Now()); err != nil {
			return cli.UsageErr("--start-at", err)
		}
	}
	if err := cli.DistinctOutputs(cli.File{Flag: "--out", Path: o.out.out}, cli.File{Flag: "--update-baseline", Path: o.out.updateBaseline}, cli.File{Flag: "--history", Path: o.history.path}); err != nil {
		return err
	}
	if o.shard != "" {
		for _, f := range []cli.File{{Flag: "--baseline", Path: o.out.baseline}, {Flag: "--update-baseline", Path: o.out.updateBaseline}} {
			if f.Path != "" {
				return cli.Usagef(f.Flag, "a shard holds part of the run: give %s to notesbench merge, which puts the shards together", f.Flag)
			}
		}
	}
	if err := o.configure(ctx); err != nil {
		return err
	}
	k, clocked := o.inst.Clock()
	o.out.realClock = clocked && k == sim.ClockReal
	if err := o.out.checkParameters(o.inst.Config()); err != nil {
		return err
	}
	opts := experiment.Options{Replications: o.out.replications, Memory: backend.Memory(), Version: notesbenchVersion(), Start: start,
		Progress: func(what string) func(done, total int) { return progress(o.app, what) }}
	if o.shard != "" {
		if opts.Shard, err = results.ParseShard(o.shard); err != nil {
			return cli.UsageErr("--shard", err)
		}
	}
	outcome, err := o.inst.Run(ctx, opts)
	if err != nil {
		return o.usage(err)
	}
	if err := o.history.finish(); err != nil {
		return err
	}
	if err := o.out.emit(o.app, format, outcome); err != nil {
		return err
	}
	return outcome.Failure()
}
