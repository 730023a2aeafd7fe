// Package sim owns time, randomness and behaviour: the real and virtual clocks, seeded
// random streams, reply-loss injection, the scripted editors and their conflict
// policies, one replication driver and one worker pool, and the experiments, each a
// value (Race, Create, …) that runs for a list of seeds and returns its rows and
// per-run results (Experiment).
//
// Experiments return the plain result types of package results (runs and rows
// with their JSON keys). They reach the Notes only through the contract seam, a
// contract.Target given in their configuration: sim imports no store and does not
// know which implementation serves the contract.
//
// sim knows nothing of tables, output formats or flags: an experiment never prints.
package sim
