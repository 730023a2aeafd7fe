package audit

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/nemesis"
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
func (r Reach) Modes(crash FaultMode, open func(ctx context.Context, kind string, every, callTimeout time.Duration) (contract.Target, error)) ([]FaultMode, []NemesisMode) {
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
