package audit

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/results"
)

// Reach is what the caller knows of the audit's target beside what the
// target says of itself: what it was given, how notesbench reaches it
// (which decides the faults it can make on it), and what its profile says
// of its server.
type Reach struct {
	// Target is --target ("embedded" for the embedded store); Profile the
	// profile its tools are mapped through, "" for the contract's own.
	Target, Profile string
	// Remote says the target is a server, not the embedded store.
	Remote bool
	// Starts says notesbench starts the server's process: a stdio target,
	// or an HTTP one with --spawn.
	Starts bool
	// Postgres says the embedded store is a PostgreSQL server's.
	Postgres bool
	// StateDir, when the target names it, is the placeholder of a folder
	// the server keeps its state in, fresh at each open
	// (mcpclient.DirPlaceholder): each part then runs on a store of its
	// own (Options.Reopen). "" when the target names none.
	StateDir string
	// CallTimeout bounds each call to the server (--call-timeout); 0 is no
	// bound.
	CallTimeout time.Duration
	// Profiled is what the profile says of the server, nil without one.
	Profiled *Profiled
}

// CrashTest is how the caller runs the kill -9 test (internal/crash's
// Command, which notesbench crash runs too): the audit links no
// implementation of the contract, so it composes the test's settings and
// the caller runs it.
type CrashTest struct {
	// Defaults are the settings the audit does not compose: the seed and
	// the servers' lives.
	Defaults results.CrashSettings
	// Needs are the operations its runs call.
	Needs []contract.Capability
	// Run runs the test at s, each check of its history bounded by
	// timeout.
	Run func(ctx context.Context, s results.CrashSettings, timeout time.Duration) (FaultOutcome, error)
}

// crashMode is the audit's kill -9 column: test at the budget's kills, of
// the embedded store under each of the budget's synchronous settings, or of
// the target's server through its profile.
func (r Reach) crashMode(test CrashTest) FaultMode {
	run := func(ctx context.Context, b Budget) (FaultOutcome, error) {
		s := test.Defaults
		s.Kills = b.Kills
		if r.Remote {
			s.Target, s.Profile = r.Target, r.Profile
		} else {
			s.Synchronous = b.Synchronous
		}
		return test.Run(ctx, s, b.CheckTimeout)
	}
	return FaultMode{Mode: "crash", Needs: test.Needs, Run: run}
}

// target is the --target the commands the audit lists name: the server's,
// or embedded.
func (r Reach) target() string {
	if r.Remote {
		return r.Target
	}
	return "embedded"
}

// name names the target in the records of the runs: the server's, with its
// profile; "" for the embedded store.
func (r Reach) name() string {
	switch {
	case !r.Remote:
		return ""
	case r.Profile == "":
		return r.Target
	}
	return r.Target + " (profile " + r.Profile + ")"
}

// Modes are the audit's fault modes against a target reached as r, a
// column each: the kill -9 test, crash, of what notesbench runs in
// processes of its own — the embedded SQLite store, or the server of a
// stdio target or of an HTTP target it starts — and the race under each
// nemesis notesbench can make between itself and the target, on the wire
// (lose-replies, duplicate) of any server, on the process (kill, pause) of
// one it starts. open opens the target with the fault kind made on it every
// every, each call bounded by callTimeout. This is the one place a fault
// mode is added: a mode that cannot run against this target says why, and
// its cells say "not run" with the reason.
func (r Reach) Modes(test CrashTest, open func(ctx context.Context, kind string, every, callTimeout time.Duration) (contract.Target, error)) ([]FaultMode, []NemesisMode) {
	crash := r.crashMode(test)
	switch {
	case r.Remote && !r.Starts:
		crash.Run, crash.NotRun = nil, "notesbench does not start this HTTP server, so it cannot kill it: give --spawn with the command that starts it"
	case r.Postgres:
		crash.Run, crash.NotRun = nil, "the kill -9 test runs the embedded SQLite store; a PostgreSQL server is not notesbench's process"
	}
	var out []NemesisMode
	// Those on the wire first: they run on any server.
	ns := nemesis.All()
	slices.SortStableFunc(ns, func(a, b nemesis.Nemesis) int { return cmp.Compare(a.Place(), b.Place()) })
	for _, n := range ns {
		kind := n.Kind()
		m := NemesisMode{Kind: kind, Flags: []string{"--nemesis", kind}, Reissue: kind == history.FaultLoseReplies}
		switch {
		case !r.Remote:
			m.NotRun = "the embedded store runs inside notesbench: no wire or process to fault (audit notesbench serve as a --target to fault it)"
		case n.Place() == nemesis.Process && !r.Starts:
			m.NotRun = "notesbench does not start this HTTP server, so it cannot " + kind + " it: give --spawn with the command that starts it"
		default:
			timeout := nemesis.CallTimeout([]string{kind}, r.CallTimeout)
			m.Open = func(ctx context.Context, every time.Duration) (contract.Target, error) {
				return open(ctx, kind, every, timeout)
			}
			if timeout != r.CallTimeout {
				m.Flags = append(m.Flags, "--call-timeout", timeout.String())
			}
		}
		out = append(out, m)
	}
	return []FaultMode{crash}, out
}
