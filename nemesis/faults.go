package nemesis

import (
	"slices"
	"time"
)

// Faults are the faults a target makes between notesbench and its server, as a
// command or a composition asks for them; the client that owns the
// processes and the wire (mcpclient) makes them. A nil *Faults makes none, and
// costs nothing: no filter on the wire, no proxy.
type Faults struct {
	// Kinds are the kinds of the nemeses (All) each run's schedule draws
	// from, each equally likely: kill (SIGKILL the server's process group
	// while a write is in flight, start it again with the same command),
	// pause (SIGSTOP it while a write is in flight, past the call timeout,
	// then SIGCONT), lose-replies (drop the reply to the next write after
	// the server wrote it, and cut the connection) and duplicate (send the
	// next write twice at once, the same arguments and key).
	Kinds []string
	// Every is the mean time between two faults of a run's schedule (the
	// gaps are exponential, drawn from the run's seed); 0 means no
	// schedule: faults are made only when asked for.
	Every time.Duration
	// Pause is how long a pause stops the server; 0 means twice the call
	// timeout.
	Pause time.Duration
}

// Makes reports whether p makes faults of kind.
func (p *Faults) Makes(kind string) bool { return p != nil && slices.Contains(p.Kinds, kind) }

// On reports whether p makes faults at place: on a process notesbench
// started (kill, pause), or on the wire (lost replies, duplicate sends).
func (p *Faults) On(place Place) bool { return p != nil && At(place, p.Kinds) }
