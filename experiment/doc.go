// Package experiment is the one home for running an experiment. Each
// experiment is declared once, as a Descriptor (Define over a Def): its name
// and help, its parameters bound to its configuration with their published
// defaults, how its rows are judged against the published figures (a
// results.Rule), its tables, its invariants and how reproduce runs it. Each lives in a
// package of its own, experiments/<name>; experiments.All lists them.
//
// The pipeline is here, once for every experiment: run the configuration,
// compare its rows with the published figures, replicate the published setup
// on the virtual clock for the verdicts, and build the result and its section
// whole (Instance.Run). Every run goes through one Job cut into units (the
// main run of each seed, each seed of the replications): one method executes
// the units that run here — all of them for a whole run, a shard's share for
// --shard K/N, each step's for a reproduction — and one assembles the result
// from all of them, whether they ran here or a merge read them back from the
// shards.
//
// experiment knows sim (the runs), results (the data and the verdicts) and
// report (the tables); it parses no flags, opens no files and prints nothing:
// a command turns Params into flags and Findings into output. It links no
// implementation of the contract: the command picks every target the runs
// go to — the one the user names, the in-memory one replications run on
// (Options.Memory), bench's peer (sim.Runtime.Peer) — and passes it in.
//
// What composes experiments lives above this package and reaches them
// through the API every command uses (Descriptor, Instance, Param, Options,
// Findings, Job), setting their configurations typed, not as flag strings
// (Configure with a Change; the Configured writes the command line): the
// audit (internal/audit) runs race, create and sources beside conform,
// check and the fault modes, and folds them into one matrix;
// the reproduction (internal/reproduce) runs every experiment at its
// published parameters, as each one's Info.Reproduce says, and the timing
// ablation. experiment knows nothing of them, nor of check or conform.
package experiment
