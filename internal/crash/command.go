package crash

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Argv is the command line of notesbench crash that runs a test of s: its
// kills, seed and the servers' life, then the target's flags (spawn is
// --spawn's command, "" for none) or, on the embedded store, its
// synchronous settings. notesbench crash records it in its history; the
// audit lists it as its kill -9 part's command.
func Argv(s results.CrashSettings, spawn string) []string {
	life := sim.Dist{Min: s.LifeMinNS, Max: s.LifeMaxNS}.String()
	argv := []string{"notesbench", "crash", "--kills", strconv.Itoa(s.Kills), "--seed", strconv.FormatUint(s.Seed, 10), "--life", life}
	if s.Target == "" {
		syncs := make([]string, len(s.Synchronous))
		for i, v := range s.Synchronous {
			syncs[i] = string(v)
		}
		return append(argv, "--synchronous", strings.Join(syncs, ","))
	}
	argv = append(argv, "--target", s.Target)
	if s.Profile != "" {
		argv = append(argv, "--profile", s.Profile)
	}
	if spawn != "" {
		argv = append(argv, "--spawn", spawn)
	}
	return argv
}

// ServeSelf is Test.Serve for this program: how a test runs the embedded
// store, as notesbench serve over stdio on the database file db with
// synchronous setting s, from the running executable, env added to its
// environment.
func ServeSelf(env []string) (func(db string, s contract.Synchronous) string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding notesbench to start the store's server: %w", err)
	}
	return func(db string, s contract.Synchronous) string {
		words := []string{}
		if len(env) > 0 {
			words = append(append(words, "env"), env...)
		}
		words = append(words, exe, "serve", "--db", db, "--synchronous", string(s))
		return "stdio:" + shell.Line(words)
	}, nil
}

// Command is the kill -9 test as notesbench runs it, the one composition of
// notesbench crash and of the audit's crash column: the embedded store
// served by this program (ServeSelf), or the server of Settings.Target, its
// runs recorded in a history headed by the command line that reruns the
// test (Argv), checked and judged (Test).
type Command struct {
	Settings results.CrashSettings
	// Spawn is the command that starts an HTTP target's server (--spawn),
	// "" for none.
	Spawn string
	// Dir is the folder of the embedded store's databases; the caller makes
	// it and removes it.
	Dir string
	// Open opens a target whose server can be killed (Test.Open).
	Open func(ctx context.Context, target string) (contract.Target, error)
	// Timeout bounds each check of the history.
	Timeout time.Duration
	// Env is added to the environment of the embedded store's servers.
	Env []string
	// Version is notesbench's version, for the record.
	Version string
}

// Ran is what a Command found: the command line that reruns it, the
// history it recorded (the caller writes it where it likes), the checks of
// that history and the runs judged, and its record, as notesbench crash
// --format json prints it.
type Ran struct {
	Argv    []string
	History *history.Writer
	Tested
	Record results.CrashRecord
}

// Run runs the test c describes.
func (c Command) Run(ctx context.Context) (Ran, error) {
	serve, err := ServeSelf(c.Env)
	if err != nil {
		return Ran{}, err
	}
	argv := Argv(c.Settings, c.Spawn)
	w := history.NewWriter(history.Header{Experiment: "crash", Command: shell.Line(argv)})
	tested, err := Test{Settings: c.Settings, Dir: c.Dir, Timeout: c.Timeout, History: w, Serve: serve, Open: c.Open}.Run(ctx)
	if err != nil {
		return Ran{}, err
	}
	rec := results.NewCrashRecord(c.Settings, tested.Verdict.Runs, tested.Checks, c.Version)
	return Ran{Argv: argv, History: w, Tested: tested, Record: rec}, nil
}
