package crash

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/contract"
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
