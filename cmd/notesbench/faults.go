package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/nemesis"
)

// faultFlags are the flags of a server's faults and its process: the faults
// made between notesbench and the server (--nemesis, --nemesis-every), the
// bound on each call (--call-timeout), and the command that starts an HTTP
// server notesbench then owns (--spawn).
type faultFlags struct {
	nemesis      string
	every        time.Duration
	callTimeout  time.Duration
	startTimeout time.Duration
	spawn        string

	withNemesis bool
	flags       *pflag.FlagSet
}

// defaultNemesisEvery is the mean time between two faults of a run.
const defaultNemesisEvery = time.Second

// register adds the flags to fs: --call-timeout and --spawn, and, for an
// experiment whose runs take faults, --nemesis and --nemesis-every.
func (f *faultFlags) register(fs *pflag.FlagSet, faults bool) {
	f.flags, f.withNemesis = fs, faults
	fs.DurationVar(&f.callTimeout, "call-timeout", 0, "with --target: a call without a reply by then ends in an info outcome (may have happened) and the run goes on; 0 means no bound ("+nemesis.PauseTimeout.String()+" with --nemesis pause)")
	registerStartTimeout(fs, &f.startTimeout)
	fs.StringVar(&f.spawn, "spawn", "", "with an HTTP --target naming {port}: the command that starts the server, {port} in it replaced by a free loopback port; notesbench starts it, starts it again after a kill, and stops it at the end")
	if faults {
		fs.StringVar(&f.nemesis, "nemesis", "", "with --target: faults between notesbench and the server, comma-separated: "+nemesis.Help()+"; "+strings.Join(nemesis.KindsAt(nemesis.Process), " and ")+" need a server notesbench starts (stdio, or --spawn)")
		fs.DurationVar(&f.every, "nemesis-every", defaultNemesisEvery, "with --nemesis: the mean time between two faults of a run, on a schedule drawn from the run's seed")
	}
}

// registerStartTimeout adds --start-timeout to fs, into v.
func registerStartTimeout(fs *pflag.FlagSet, v *time.Duration) {
	fs.DurationVar(v, "start-timeout", 0, fmt.Sprintf("with --target: how long a start of the server may take, to the end of its MCP handshake; a start that takes longer is made once more before it counts as failed; 0 means %v (2m0s for the first start of a server notesbench starts)", backend.DefaultConnectTimeout))
}

// given reports whether the flag called name was given.
func (f *faultFlags) given(name string) bool {
	fl := f.flags.Lookup(name)
	return fl != nil && fl.Changed
}

// apply checks the flags and sets them into spec: every error is one line
// naming its flag.
func (f *faultFlags) apply(spec *backend.Spec, remote bool) error {
	if f.callTimeout < 0 {
		return cli.Usagef("--call-timeout", "cannot be negative")
	}
	if f.startTimeout < 0 {
		return cli.Usagef("--start-timeout", "cannot be negative")
	}
	for _, name := range []string{"nemesis", "spawn", "call-timeout", "start-timeout"} {
		if f.given(name) && !remote {
			return cli.Usagef("--"+name, "is about a server: give --target too")
		}
	}
	spec.CallTimeout, spec.StartTimeout, spec.Spawn = f.callTimeout, f.startTimeout, f.spawn
	if !f.withNemesis || f.nemesis == "" {
		if f.withNemesis && f.given("nemesis-every") {
			return cli.Usagef("--nemesis-every", "spaces the faults of --nemesis: give --nemesis too")
		}
		return nil
	}
	kinds, err := nemesis.Parse(f.nemesis)
	if err != nil {
		return cli.UsageErr("--nemesis", err)
	}
	if f.every <= 0 {
		return cli.Usagef("--nemesis-every", "must be more than 0")
	}
	spec.CallTimeout = nemesis.CallTimeout(kinds, spec.CallTimeout)
	spec.Faults = &nemesis.Faults{Kinds: kinds, Every: f.every}
	return nil
}

// describe says which faults the flags make, for the record: "kill,pause
// every 1s", "" for none.
func (f *faultFlags) describe() string {
	if !f.withNemesis || f.nemesis == "" {
		return ""
	}
	return fmt.Sprintf("%s every %s", strings.ReplaceAll(f.nemesis, " ", ""), f.every)
}
