// Package history records what the clients of a run sent and saw, call by call,
// and reads it back: the input of package check, which judges a run from its
// history alone.
//
// A history is a JSON Lines file. Its first line is the history header (the
// experiment and how it was made); then, for every run, a run header (the run's
// name, seed, clock and the contract variant it was served), one call record per
// tool call (who called, the arguments that matter, invoke and return times and
// the outcome), one fault record per fault injected into the run, among the
// calls in time order, and one final-state record per Note (the Note as read
// back through the tools at the end of the run); its last line is the end line,
// which counts the runs, calls and faults before it. Every line carries
// format_version.
//
// This package writes FormatVersion 2. A call's outcome is one of Jepsen's
// three, contract.Outcome: ok, fail (it definitely did not happen) or info (it
// may have happened); error_kind names the kind of a fail or an info
// (contract.KindOf) and error its message. A conflict is a fail of kind
// conflict whose version is the current version the reply named, empty when
// the server's refusal named none. A format-2 history without its end line was
// cut short (the process writing it was killed): Read returns what it holds and
// says so (History.Cut). The reader also reads format 1, which has no end line
// and four outcomes of its own: ok, conflict (a fail of kind conflict), error
// (a fail of its kind) and unknown (an info of its kind).
//
// Recording: one Recorder records one run (Record), on a clock and into a
// Sink, both its parameters. Recorder.Session wraps a contract.Session so
// that every typed call is recorded, its outcome classified by
// contract.OutcomeOf and contract.KindOf; Intend and LoseReply let the caller
// say what a call means to add and that its reply never reached the client;
// Recorder.Fault records a fault, timed with Recorder.Now; Recorder.Final
// reads a Note's final state back; Recorder.End ends the run. Of the two
// Sinks, a Writer collects runs and writes them whole or not at all
// (WriteFile), the runs sorted by name; a Log writes one run to its file line
// by line as it is recorded.
//
// A served history (ExperimentServe) is recorded on a server's side of the
// wire, as its calls return, into a Log: Recorder.Client records one client
// session's calls (or the scripted person's, session PersonSession), with
// what a server can tell of each write from what that session had read: the
// lines it adds to and drops from the session's last view of the tab, and
// the older view its content came from (Call.ReadVersion, Adds, Drops,
// BaseVersion). Recorder.Close ends such a run with the final state of every
// Note a call named. The person's actions in the app are calls of the
// extension tools that name them (Call.IsPersonAction).
//
// The package knows the contract's types and tools. It knows nothing of
// experiments, editors, clocks or stores, and it judges nothing: deciding what a
// history means is package check's job.
package history
