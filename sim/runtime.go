package sim

import (
	"context"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// Runtime is what an experiment's runs go to and report to, beside what they
// measure: what serves the contract, what records the calls, who hears of
// progress. It is passed to Run, never held in a configuration: nothing in
// it is recorded, and nothing in it changes a count, but for a time limit
// on the real clock (StopAt), which the runs it stopped say.
type Runtime struct {
	// Target opens the contract of each run.
	Target contract.Target
	// Progress, when set, is called after each run with the runs done and
	// the total.
	Progress func(done, total int)
	// History, when set, records every run's calls and final state for
	// notesbench check; nil records nothing.
	History *history.Writer
	// Peer, when set, times the same write in another program beside each
	// of bench's one-writer runs (pgbench beside a PostgreSQL store, as the
	// command picks it), and returns one latency per timed write in µs.
	Peer func(ctx context.Context, guard contract.Guard, writes, warmup, textSize int) ([]float64, error)
	// StopAt, when set, is the race's time limit on the wall clock: its
	// editors start no edit after it, and a run they stopped reads and
	// counts its final state as after its last edit, saying so
	// (RaceRun.Stopped), as Jepsen's time-limited generators end a test
	// and still check what ran. A run on the virtual clock ignores it: its
	// counts never depend on the machine's speed.
	StopAt time.Time
}

// TargetSettings is what a configuration records of the target its runs go
// to, as the command names it: every configuration that runs against a
// target embeds one, and its JSON form holds them (store, target, the wire's
// keys, nemesis, max_errors). The target itself is the Runtime's.
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

// Departures implements Runner for the configurations that embed
// TargetSettings: against a server, its contract, and the faults made
// between notesbench and it (Nemesis).
func (s TargetSettings) Departures(target contract.Target) []string {
	var out []string
	if d := serverDifference(target); d != "" {
		out = append(out, d)
	}
	if s.Nemesis != "" {
		out = append(out, "faults "+s.Nemesis+" (published: none)")
	}
	return out
}
