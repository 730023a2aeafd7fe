// Package sim is the engine the experiments run on: the real and virtual
// clocks, seeded random streams, the scripted editors and their conflict
// policies, the race engine, a run's history, one fold of replications and
// one worker pool. Each experiment is a package of its own
// (experiments/<name>) whose configuration is a Runner: it runs for a list
// of seeds and returns its rows and per-run results. The copies of a
// configuration a run needs (on another clock, recording its target, as a
// replication runs it) are made through the Env or TargetSettings it embeds
// (OnClock, WithTarget, Replica).
//
// A run reaches the Notes only through the contract seam, a contract.Target
// in its Runtime, never held in a configuration: sim imports no store and
// does not know which implementation serves the contract.
//
// Faults between notesbench and a server (kills, pauses, lost replies,
// duplicate sends) are the target's, never an editor's: a run starts the
// faults of its Backend once it is set up and stops them before it reads
// its final state, and its editors meet them as the outcomes of their calls
// (info: it may have happened), which they count and go on after.
//
// sim knows nothing of tables, output formats or flags: a run never prints.
package sim
