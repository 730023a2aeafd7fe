// Package sim owns time, randomness and behaviour: the real and virtual clocks, seeded
// random streams, reply-loss injection, the scripted editors and their conflict
// policies, and the experiments, each a function from a config to raw per-run results.
//
// Experiments return the plain result types of package results (runs and rows
// with their JSON keys), the one package besides store that sim imports.
//
// sim knows nothing of tables or output formats: an experiment never prints.
package sim
