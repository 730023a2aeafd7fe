// Package audit judges a server in one run. An audit is a composition, not
// an engine of its own: it runs race, create, sources and conform on the
// target it is handed — the experiments through package experiment's
// descriptors, their configurations changed typed, never through flag
// strings (experiment.Configure), run as every command runs them
// (Instance.Run), the command lines it lists written from what they hold
// (Configured.Flags) — checks the race's history
// with package check, runs the fault modes its caller hands it, and folds
// what they found into one matrix of anomalies (results.Audit), built
// whole (Run). Its budgets, how much of each part it runs, are declared
// once (Budgets).
//
// It sits above experiment, which knows nothing of it. Like experiment it
// parses no flags, opens no files, prints nothing and links no
// implementation of the contract: cmd/notesbench opens the target, says
// what it knows of it (Reach: which processes notesbench owns, what its
// profile says), from which the audit composes its subject and its fault
// modes (Reach.Subject, Reach.Modes), hands it how to open the target under
// a fault and how to run the kill -9 test (CrashTest, read back by
// CrashOutcome), renders what Run returns with package report, and ends
// with its verdict (Verdict). It lives under internal/
// because only the command uses it; the top-level audit/ folder is the
// published audit itself (its servers, their sections and the program that
// regenerates them), not code of this package.
package audit
