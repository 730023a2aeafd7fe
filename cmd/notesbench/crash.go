package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/crash"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/sim"
)

// crashOptions holds the crash command's flags.
type crashOptions struct {
	app         *app
	kills       int
	synchronous string
	seed        uint64
	life        string
	db          string
	history     string
	out         string
	format      formatFlag
	timeout     time.Duration

	flags *pflag.FlagSet

	// childEnv is added to the environment of every child, for tests that
	// re-execute their own binary as notesbench.
	childEnv []string
}

func newCrashCmd(a *app, runF func(context.Context, *crashOptions) error) *cobra.Command {
	opts := &crashOptions{app: a}
	def := crash.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "crash",
		Short: "Kill -9 the store again and again while editors write through it; no acknowledged write may be lost",
		Long: `crash runs the SQLite store in a child process (notesbench itself, in a hidden
mode) on a WAL database. Three editors write through it: two append lines to the
text, re-reading and re-applying on a conflict; one adds sources. The child answers
a write only after COMMIT returned, so an answer is an acknowledgement. The child is
killed with SIGKILL at seeded random moments (--kills times, each child serving for
a time drawn from --life) and restarted; an editor whose call was cut off resends
it, the same, with the same key. After the last kill notesbench opens the database
itself, records the final state, runs PRAGMA integrity_check, and judges the
recorded history with the checks of notesbench check.

It exits 1 when an acknowledged write is missing, the integrity check fails or a
check is violated. A kill ends a process, not the machine: what the operating
system has been handed survives it under either synchronous setting.

See docs/faults.md.`,
		Example: examples([]string{
			"notesbench crash --seed 1",
			"notesbench crash --kills 200 --synchronous full --history c.jsonl",
		}),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCrash(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.flags = fs
	fs.IntVar(&opts.kills, "kills", def.Kills, "SIGKILLs per synchronous setting")
	fs.StringVar(&opts.synchronous, "synchronous", "normal,full", "SQLite synchronous settings to run, in WAL mode: normal, full or both")
	fs.Uint64Var(&opts.seed, "seed", def.Seed, "seed of the kill moments")
	fs.StringVar(&opts.life, "life", "5ms-40ms", "how long each child serves before it is killed, from the moment it is ready: a uniform range")
	fs.StringVar(&opts.db, "db", "", "keep the databases in this folder (default: a temporary folder, removed)")
	fs.StringVar(&opts.history, "history", "", "also write the recorded history to this file (written whole or not at all)")
	fs.StringVar(&opts.out, "out", "", "also write the JSON result to this file (written whole or not at all)")
	opts.format.register(cmd, withCSV...)
	fs.DurationVar(&opts.timeout, "timeout", check.DefaultTimeout, "time each check of the history may take")
	completeFlag(cmd, "synchronous", true, contract.SynchronousSettings.Strings()...)
	cmd.AddCommand(newCrashChildCmd(a))
	return cmd
}

// newCrashChildCmd is the hidden child: the store served on standard input and
// output, until its input ends.
func newCrashChildCmd(a *app) *cobra.Command {
	var db, sync string
	cmd := &cobra.Command{
		Use:    "child",
		Short:  "Serve the store to a crash run (notesbench crash starts it)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := contract.SynchronousSettings.Parse(sync)
			if err != nil {
				return usageErr("--synchronous", err)
			}
			if db == "" {
				return usagef("--db", "no database file given")
			}
			return crash.Serve(cmd.Context(), a.stdin, a.stdout, crash.ChildConfig{DB: db, Synchronous: s})
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "the database file")
	cmd.Flags().StringVar(&sync, "synchronous", "normal", "SQLite synchronous setting")
	return cmd
}

// crashViolation is a crash run that lost an acknowledged write, broke the
// database or a check: exit code 1.
type crashViolation struct{ problems []string }

func (e crashViolation) Error() string { return strings.Join(e.problems, "; ") }

func runCrash(ctx context.Context, o *crashOptions) error {
	a := o.app
	format, err := o.format.parse(o.app)
	if err != nil {
		return err
	}
	if o.timeout <= 0 {
		return usagef("--timeout", "must be more than 0")
	}
	life, err := sim.ParseDist(o.life)
	if err != nil {
		return usageErr("--life", err)
	}
	syncs, err := contract.ParseList(o.synchronous, contract.SynchronousSettings.Parse)
	if err != nil {
		return usageErr("--synchronous", err)
	}
	settings := crash.Settings{Kills: o.kills, Synchronous: syncs, Seed: o.seed, LifeMinNS: life.Min, LifeMaxNS: life.Max}
	if err := settings.Validate(); err != nil {
		return flagError(o.flags, err)
	}
	if o.history != "" {
		if err := checkHistoryWritable(o.history); err != nil {
			return usageErr("--history", err)
		}
	}
	if err := checkResultFile("--out", o.out); err != nil {
		return err
	}
	if err := distinctOutputs(output{"--history", o.history}, output{"--out", o.out}); err != nil {
		return err
	}
	dir := o.db
	if dir == "" {
		tmp, err := a.scratch.Path()
		if err != nil {
			return err
		}
		if dir, err = os.MkdirTemp(tmp, "crash-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErr("--db", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding notesbench to start the store process: %w", err)
	}

	w := history.NewWriter(history.Header{Experiment: "crash", Command: "notesbench crash " + crashArgs(o)})
	tested, err := crash.Test{Settings: settings, Dir: dir, Timeout: o.timeout, History: w,
		Command: func(c crash.ChildConfig) *exec.Cmd {
			cmd := exec.Command(exe, "crash", "child", "--db", c.DB, "--synchronous", string(c.Synchronous))
			cmd.Env = append(os.Environ(), o.childEnv...)
			return cmd
		}}.Run(ctx)
	if err != nil {
		return err
	}
	if o.history != "" {
		if err := w.WriteFile(o.history); err != nil {
			return err
		}
	}
	v, rep := tested.Verdict, tested.Checks
	result := report.NewCrashRecord(settings, v.Runs, rep, notesbenchVersion())
	err = printResult(a, format, result, report.Section{Main: report.CrashTables(settings, life.String(), v.Runs, rep), Records: report.CrashRecords(v.Runs, rep)})
	if err != nil {
		return err
	}
	if err := writeResult(o.out, result); err != nil {
		return err
	}
	switch {
	case len(v.Problems) > 0:
		return crashViolation{v.Problems}
	case len(v.Unknown) > 0:
		return unknownError{v.Unknown}
	}
	return nil
}

// crashArgs writes the flags of a crash run as a command line would.
func crashArgs(o *crashOptions) string {
	return fmt.Sprintf("--kills %d --synchronous %s --seed %d --life %s", o.kills, o.synchronous, o.seed, o.life)
}
