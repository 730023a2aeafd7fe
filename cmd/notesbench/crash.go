package main

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/crash"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// crashOptions holds the crash command's flags.
type crashOptions struct {
	app          *app
	kills        int
	synchronous  string
	seed         uint64
	life         string
	db           string
	history      string
	out          string
	format       formatFlag
	timeout      time.Duration
	target       string
	profile      string
	spawn        string
	callTimeout  time.Duration
	startTimeout time.Duration
	stall        time.Duration
	watch        string

	flags *pflag.FlagSet

	// childEnv is set in the environment of every server of the embedded
	// store, for tests that run their own binary as notesbench.
	childEnv []string
}

func newCrashCmd(a *app, runF func(context.Context, *crashOptions) error) *cobra.Command {
	opts := &crashOptions{app: a}
	def := crash.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "crash",
		Short: "Kill -9 a server again and again while editors write through it; no acknowledged write may be lost",
		Long: `crash has editors write through an MCP server while the server processes of their
sessions are killed with SIGKILL at seeded random moments (--kills times, each life
lasting a time drawn from --life, counted from the first write it answered), and
started again with the same command: two editors append lines to the text,
re-reading and re-applying on a conflict (one, when the server checks no version),
and one adds sources (when the server has them). A call a kill cut off is resent,
the same, with the same key, on the session started again. After the last kill
crash reads the final state through a server started again and counts what is
missing of what was acknowledged, whether the document still reads, and judges the
recorded history with the checks of notesbench check.

Without --target it measures the embedded store: notesbench serve over stdio on a
WAL database of its own, per --synchronous setting, and runs PRAGMA integrity_check
at the end. With --target it kills that server: a stdio command, or an HTTP server
notesbench starts (--spawn 'CMD' with {port} in it and in the URL), through the
contract's tools or a --profile.

It exits 1 when an acknowledged write is missing, the document no longer reads, the
integrity check fails or a check is violated. A kill ends a process, not the
machine: what the operating system has been handed survives it.

See docs/faults.md.`,
		Example: cli.Examples([]string{
			"notesbench crash --seed 1",
			"notesbench crash --kills 200 --synchronous full --history c.jsonl",
			"notesbench crash --target 'stdio:notesbench serve --db f.db --synchronous full' --kills 50",
			"notesbench crash --target 'http://127.0.0.1:{port}/mcp' --spawn 'notesbench serve --http 127.0.0.1:{port} --db f.db'",
		}),
		Args: cli.NoArgs,
		RunE: cli.Runner(opts, runF, runCrash),
	}
	fs := cmd.Flags()
	opts.flags = fs
	fs.IntVar(&opts.kills, "kills", def.Kills, "SIGKILLs per run")
	fs.StringVar(&opts.synchronous, "synchronous", "normal,full", "without --target: SQLite synchronous settings to run, in WAL mode: normal, full or both")
	fs.Uint64Var(&opts.seed, "seed", def.Seed, "seed of the kill moments")
	fs.StringVar(&opts.life, "life", sim.Dist{Min: def.MinLife, Max: def.MaxLife}.String(), "how long each server serves before it is killed, from the first write it answered: a uniform range")
	fs.StringVar(&opts.db, "db", "", "without --target: keep the databases in this folder (default: a temporary folder, removed)")
	fs.StringVar(&opts.history, "history", "", "also write the recorded history to this file (written whole or not at all)")
	fs.StringVar(&opts.out, "out", "", "also write the JSON result to this file (written whole or not at all)")
	opts.format.register(cmd, withCSV)
	fs.DurationVar(&opts.timeout, "timeout", check.DefaultTimeout, "time each check of the history may take")
	fs.StringVar(&opts.target, "target", "", "the server to kill: stdio:COMMAND [ARGS], or http://HOST:{port}/PATH with --spawn (default: the embedded store, served by notesbench serve)")
	registerProfile(fs, &opts.profile)
	fs.StringVar(&opts.spawn, "spawn", "", "with an HTTP --target naming {port}: the command that starts the server, {port} in it replaced by a free loopback port")
	fs.DurationVar(&opts.callTimeout, "call-timeout", 0, "a call without a reply by then ends in an info outcome and is resent; 0 means no bound")
	registerStartTimeout(fs, &opts.startTimeout)
	fs.DurationVar(&opts.stall, "stall", crash.DefaultStall, "how long a run waits for a write to be answered after a kill (a server that no longer starts, a document gone) before it ends, stalled, and says so; 0 means the default")
	fs.StringVar(&opts.watch, "watch", "", "with --target: a folder the server keeps its files in; the run lists the files that appeared there (the documents, and what the kills left beside them)")
	cli.CompleteFlag(cmd, "synchronous", true, contract.SynchronousSettings.Strings()...)
	return cmd
}

// crashViolation is a crash run that lost an acknowledged write, broke the
// document, the database or a check: exit code 1.
type crashViolation struct{ problems []string }

func (e crashViolation) Error() string { return strings.Join(e.problems, "; ") }

// given reports whether the flag of the setting called name was given
// (call_timeout: --call-timeout).
func (o *crashOptions) given(name string) bool {
	if o.flags == nil {
		return false
	}
	f := o.flags.Lookup(strings.ReplaceAll(name, "_", "-"))
	return f != nil && f.Changed
}

func runCrash(ctx context.Context, o *crashOptions) error {
	a := o.app
	format, err := o.format.parse(o.app)
	if err != nil {
		return err
	}
	settings, err := o.check()
	if err != nil {
		return err
	}
	dir, scratch, err := o.dbFolder()
	if err != nil {
		return err
	}
	if scratch {
		defer os.RemoveAll(dir)
	}
	ran, err := crash.Command{Settings: settings, Spawn: o.spawn, Dir: dir, Timeout: o.timeout, Env: o.childEnv, Version: notesbenchVersion(),
		Open: crashOpen(o.flags, o.profile, o.spawn, o.callTimeout, o.startTimeout)}.Run(ctx)
	if err != nil {
		return err
	}
	if o.history != "" {
		if err := ran.History.WriteFile(o.history); err != nil {
			return err
		}
	}
	v, rep := ran.Verdict, ran.Checks
	err = printResult(a, format, ran.Record, report.Section{Main: report.CrashTables(settings, v.Runs, rep), Records: report.CrashRecords(v.Runs, rep)})
	if err != nil {
		return err
	}
	if err := writeResult(o.out, ran.Record); err != nil {
		return err
	}
	switch {
	case len(v.Problems) > 0:
		return crashViolation{v.Problems}
	case len(v.Unknown) > 0:
		return cli.UnknownError{Checks: v.Unknown}
	}
	return nil
}

// check checks crash's flags, each error one line naming its flag, before
// anything runs, and returns the test's settings.
func (o *crashOptions) check() (results.CrashSettings, error) {
	settings, err := crash.Request{Kills: o.kills, Seed: o.seed, Life: o.life, Synchronous: o.synchronous,
		Target: o.target, Profile: o.profile, Spawn: o.spawn, Watch: o.watch,
		Timeout: o.timeout, CallTimeout: o.callTimeout, StartTimeout: o.startTimeout, Stall: o.stall, Given: o.given}.Settings()
	if err != nil {
		return settings, cli.FlagError(o.flags, err)
	}
	if o.history != "" {
		if err := checkHistoryWritable(o.history); err != nil {
			return settings, cli.UsageErr("--history", err)
		}
	}
	if err := checkResultFile("--out", o.out); err != nil {
		return settings, err
	}
	return settings, cli.DistinctOutputs(cli.File{Flag: "--history", Path: o.history}, cli.File{Flag: "--out", Path: o.out})
}

// dbFolder returns the folder of the embedded store's databases: --db's,
// made when missing, or a folder of the run's scratch, which scratch says
// and the caller removes; "" with --target.
func (o *crashOptions) dbFolder() (dir string, scratch bool, err error) {
	switch {
	case o.target != "":
		return "", false, nil
	case o.db != "":
		if err := os.MkdirAll(o.db, 0o755); err != nil {
			return "", false, cli.UsageErr("--db", err)
		}
		return o.db, false, nil
	}
	tmp, err := o.app.scratch.Path()
	if err != nil {
		return "", false, err
	}
	dir, err = os.MkdirTemp(tmp, "crash-")
	return dir, err == nil, err
}

// crashOpen opens the target of a kill -9 test: a server notesbench starts
// (stdio, or HTTP with spawn), whose processes the kills end, through the
// profile named (none: the contract's own tools); a server that lacks what
// a run calls (crash.Needs) is one line naming the tools, as for an
// experiment.
func crashOpen(flags *pflag.FlagSet, profile, spawn string, callTimeout, startTimeout time.Duration) func(ctx context.Context, target string) (contract.Target, error) {
	return func(ctx context.Context, target string) (contract.Target, error) {
		spec := crash.Spec(target, profile, spawn)
		spec.CallTimeout, spec.StartTimeout, spec.ClientVersion = callTimeout, startTimeout, notesbenchVersion()
		t, err := openTarget(ctx, flags, spec)
		if err != nil {
			return nil, err
		}
		if c, ok := t.(contract.Capable); ok {
			if err := c.Require("crash", crash.Needs...); err != nil {
				t.Close()
				return nil, cli.ReachError{Err: err}
			}
		}
		return t, nil
	}
}
