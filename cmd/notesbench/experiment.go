package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/helptext"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
		Example: examples(info.Examples),
		Args:    noArgs,
		RunE:    runner(opts, runF, runExperiment),
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
			completeFlag(cmd, p.Name, p.List, p.Values...)
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

// examples indents a command's examples as cobra prints them, each calling
// notesbench as the README does (spellProgram): declared as notesbench
// COMMAND, an example reads ./notesbench COMMAND.
func examples(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		command, comment := helptext.SplitComment(l)
		out[i] = helptext.ExampleIndent + spellProgram(command)
		if comment != "" {
			out[i] += "  # " + comment
		}
	}
	return strings.Join(out, "\n")
}

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
				return usageErr("--"+p.Name, err)
			}
		}
	}
	if err := o.inst.Finish(o.given); err != nil {
		return o.usage(err)
	}
	if k, ok := o.inst.Clock(); ok && k == sim.ClockVirtual && o.target.remote() {
		return usagef("--clock", "the virtual clock cannot drive %s: a server commits on its own clock (use --clock real)", o.target.target)
	}
	tmp, err := o.app.scratch.Path()
	if err != nil {
		return err
	}
	st := o.inst.Storage()
	if st.DBDir != "" {
		if st.InMemory {
			return usagef("--db", "cannot keep databases with --memory")
		}
		if err := atomicfile.CheckFolder(st.DBDir); err != nil {
			return usageErr("--db", err)
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
			return reachError{err}
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
	return flagError(o.out.flags, err)
}

// paramUsage turns an error about a parameter (*experiment.ParamError) into
// a usage error naming its flag; other errors pass unchanged.
func paramUsage(err error) error {
	var pe *experiment.ParamError
	if errors.As(err, &pe) {
		return usageErr("--"+pe.Param, pe.Err)
	}
	return err
}

// runExperiment is every experiment command: check the output flags and
// configure the experiment (both before anything runs, so that bad input
// costs nothing), run it with its verdicts, and print.
func runExperiment(ctx context.Context, o *experimentOptions) (err error) {
	info := o.inst.Info()
	defer closing(o.app, "the target", func() error { return o.target.close(o.app) }, &err)
	format, err := o.out.check(o.app, info.Name)
	if err != nil {
		return err
	}
	var start time.Time
	if o.startAt != "" {
		if start, err = experiment.ParseStart(o.startAt, time.Now()); err != nil {
			return usageErr("--start-at", err)
		}
	}
	if err := distinctOutputs(output{"--out", o.out.out}, output{"--update-baseline", o.out.updateBaseline}, output{"--history", o.history.path}); err != nil {
		return err
	}
	if o.shard != "" {
		for _, f := range []output{{"--baseline", o.out.baseline}, {"--update-baseline", o.out.updateBaseline}} {
			if f.path != "" {
				return usagef(f.flag, "a shard holds part of the run: give %s to notesbench merge, which puts the shards together", f.flag)
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
			return usageErr("--shard", err)
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

// flagError turns a field error into a usage error naming the flag of the
// same name (a field of a backend spec: store, target, note); a field no flag of the command sets is named as it
// is, never as a flag that does not exist. Other errors pass unchanged.
func flagError(fs *pflag.FlagSet, err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err
	}
	name := strings.ReplaceAll(fe.Field, "_", "-")
	if fs != nil && fs.Lookup(name) != nil {
		return usageErr("--"+name, fe.Err)
	}
	return usageError{fmt.Errorf("%s: %w", strings.ReplaceAll(fe.Field, "_", " "), fe.Err)}
}

// completeFlag makes the flag called name of cmd complete to values: one of
// them, or (list) several, comma-separated. A value may carry a description
// after a tab.
func completeFlag(cmd *cobra.Command, name string, list bool, values ...string) {
	cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if !list {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
		head := ""
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			head = toComplete[:i+1]
		}
		listed := strings.Split(head, ",")
		var out []string
		for _, v := range values {
			if name, _, _ := strings.Cut(v, "\t"); !slices.Contains(listed, name) {
				out = append(out, head+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}
