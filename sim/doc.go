// Package sim owns time, randomness and behaviour: the real and virtual clocks, seeded
// random streams, reply-loss injection, the scripted editors and their conflict
// policies, one fold of replications and one worker pool, and the experiments, each a
// value (Race, Create, …) that runs for a list of seeds and returns its rows and
// per-run results (Experiment).
//
// Experiments return the plain result types of package results (runs and rows
// with their JSON keys). They reach the Notes only through the contract seam, a
// contract.Target passed to their run (Runtime), never held in their
// configuration: sim imports no store and does not know which implementation
// serves the contract.
//
// Faults between notesbench and a server (kills, pauses, lost replies,
// duplicate sends) are the target's, never an editor's: a run starts the
// faults of its Backend once it is set up and stops them before it reads
// its final state, and its editors meet them as the outcomes of their calls
// (info: it may have happened), which they count and go on after.
//
// sim knows nothing of tables, output formats or flags: an experiment never prints.
package sim
