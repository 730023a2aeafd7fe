// Package nemesis declares the faults notesbench makes between itself and a
// server under test, each one value (a Nemesis: its name, where it is
// made, what it does, and how it is made on a run), and the one seeded
// schedule in time that drives them, whatever they are. Adding a fault is
// adding a file here and a line to the list in all.go: the parser of
// --nemesis, its help, the checks of what a target can take and the
// schedule read that list (TestANewFaultIsOneValue), and so do the audit's
// columns (internal/audit's Reach.Modes). A
// fault is made of what a Victim offers; one that needs the wire handled
// in a way no Victim offers yet also needs the client that owns the wire
// (mcpclient) to offer it. A lost reply can also be drawn per reply
// by the client itself (LoseReplies.PerReply), as the create and sources
// experiments do.
//
// It knows nothing of MCP or of experiments: a Victim is what a client offers
// a nemesis of one run's server (its processes and its wire); mcpclient is
// the client that offers one.
package nemesis

import "context"

// A Place is where a fault is made.
type Place int

const (
	// Wire faults are made between notesbench and the server: on the pipes
	// of a server over stdio, or a loopback proxy in front of one over
	// HTTP. Any server can take them.
	Wire Place = iota
	// Process faults are made on a server process notesbench started
	// (stdio, or an HTTP server it spawned).
	Process
)

// A Nemesis makes one kind of fault on a run.
type Nemesis interface {
	// Kind is its name, as --nemesis takes it and a history records it
	// (history.FaultKill, …).
	Kind() string
	// Place is where it is made.
	Place() Place
	// About says what it does, in a few words, for --help.
	About() string
	// Invoke makes one fault on r, waiting first for what the fault needs
	// (a write in flight, the write that takes it), and reports false when
	// r stopped first.
	Invoke(ctx context.Context, r Victim) bool
}

// Victim is one run's server as the nemeses reach it.
type Victim interface {
	// AwaitWrite waits until a write of the run is in flight, and reports
	// false when the run stopped first.
	AwaitWrite() bool
	// Kill SIGKILLs the run's server processes; each is started again as
	// the client needs it. A kill that found nothing to kill is no fault.
	Kill(ctx context.Context) error
	// Pause stops the run's server processes (SIGSTOP) past the call
	// timeout, then continues them, or until the run stops.
	Pause()
	// Arm arms one fault of kind on the run's wire, for the next write to
	// take, and waits until one did; it reports false when the run stopped
	// first.
	Arm(kind string) bool
	// Recovered waits until a write of the run that started after the
	// fault just made has returned, whatever its outcome: the run is past
	// the fault. It reports false when the run stopped first.
	Recovered() bool
}
