package sim

import (
	"context"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// Runtime is what an experiment's runs go to and report to, beside what they
// measure: what serves the contract, what records the calls, who hears of
// progress. Every configuration embeds one; nothing in it changes a count.
// Its TargetSettings name where the runs went, for the record (the JSON form
// of a configuration holds them).
type Runtime struct {
	TargetSettings
	// Target opens the contract of each run.
	Target contract.Target `json:"-"`
	// Progress, when set, is called after each run with the runs done and
	// the total.
	Progress func(done, total int) `json:"-"`
	// History, when set, records every run's calls and final state for
	// notesbench check; nil records nothing.
	History *history.Writer `json:"-"`
	// Peer, when set, times the same write in another program beside each
	// of bench's one-writer runs (pgbench beside a PostgreSQL store, as the
	// command picks it), and returns one latency per timed write in µs.
	Peer func(ctx context.Context, guard contract.Guard, writes, warmup, textSize int) ([]float64, error) `json:"-"`
}

// TargetSettings is what a configuration records of the target its runs go
// to, as the command names it: its JSON form holds them (store, target, the
// wire's keys, nemesis, max_errors). The target itself is the Runtime's.
type TargetSettings struct {
	// Store names the PostgreSQL store the runs go to (without its
	// password), when they go to one.
	Store string `json:"store"`
	// TargetName names the server the runs go to, when they go to one.
	TargetName string `json:"target"`
	// Wire says how the runs reached that server: the MCP protocol version,
	// the session mode and the replicas (keys protocol, mcp_sessions,
	// replicas and balance, each left out when empty).
	contract.Wire
	// Nemesis says which faults the target makes between notesbench and
	// the server, and how often ("kill,pause every 1s"), when it makes any.
	// The target makes them (the faults sit between the client and the
	// server); the runs start and stop them and count what they bring.
	Nemesis string `json:"nemesis,omitempty"`
	// MaxErrors ends a run once this many of its calls ended in a server
	// error (a refusal other than a conflict, or an outcome nobody knows);
	// 0 means DefaultMaxErrors. What the run measured until then is kept.
	MaxErrors int `json:"max_errors"`
}

// runtime returns r itself: through it, Replica, OnClock and Departures
// reach the Runtime of any configuration.
func (r *Runtime) runtime() *Runtime { return r }

// environment returns e itself, for the configurations that run on an Env.
func (e *Env) environment() *Env { return e }

type (
	hasRuntime interface{ runtime() *Runtime }
	hasEnv     interface{ environment() *Env }
	// verdictRows is a configuration that, when replicated for its
	// verdicts, keeps only the rows a published figure stands for.
	verdictRows interface{ keepPublishedRows() }
)

// Replica returns c as a verdict replication runs it: the same parameters,
// on the virtual clock with an in-memory database (for an experiment that
// runs on either clock), against target, recording nothing and reporting no
// progress.
func Replica[C any](c C, target contract.Target) C {
	switch p := any(&c).(type) {
	case hasEnv:
		e := p.environment()
		*e = e.replica(target)
	case hasRuntime:
		*p.runtime() = Runtime{Target: target}
	}
	if v, ok := any(&c).(verdictRows); ok {
		v.keepPublishedRows()
	}
	return c
}

// OnClock returns c on clock k against target, reporting progress (nil:
// none), for an experiment that runs on either clock (c runs on an Env); any
// other c comes back as it is.
func OnClock[C any](c C, k ClockKind, target contract.Target, progress func(done, total int)) C {
	if p, ok := any(&c).(hasEnv); ok {
		e := p.environment()
		e.Clock, e.Target, e.Progress = k, target, progress
	}
	return c
}

// Clocked reports whether c runs on either clock (on an Env), and on which.
func Clocked[C any](c C) (k ClockKind, ok bool) {
	if p, ok := any(&c).(hasEnv); ok {
		return p.environment().Clock, true
	}
	return "", false
}

// Departures lists how the way c runs departs from the published setup in a
// way that changes counts, beside its parameters: the virtual clock's
// service time and an in-memory database under the real clock (for c on an
// Env), a server's contract (for any c against a server) and the faults
// made between notesbench and it (Nemesis).
func Departures[C any](c C) []string {
	var out []string
	if p, ok := any(&c).(hasEnv); ok {
		out = append(out, p.environment().departures()...)
	}
	if p, ok := any(&c).(hasRuntime); ok {
		rt := p.runtime()
		if d := serverDifference(rt.Target); d != "" {
			out = append(out, d)
		}
		if rt.Nemesis != "" {
			out = append(out, "faults "+rt.Nemesis+" (published: none)")
		}
	}
	return out
}

// RuntimeOf returns the Runtime c embeds, or nil for a configuration
// without one.
func RuntimeOf[C any](c *C) *Runtime {
	if p, ok := any(c).(hasRuntime); ok {
		return p.runtime()
	}
	return nil
}
