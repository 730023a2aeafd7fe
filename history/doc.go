// Package history records what the clients of a run sent and saw, call by call,
// and reads it back: the input of package check, which judges a run from its
// history alone.
//
// A history is a JSON Lines file. Its first line is the history header (the
// experiment and how it was made); then, for every run, a run header (the run's
// name, seed, clock and the contract variant it was served), one call record per
// tool call (who called, the arguments that matter, invoke and return times and
// the outcome) and one final-state record per Note (the Note as read back through
// the tools at the end of the run). Every line carries format_version; this
// package writes and reads FormatVersion 1.
//
// Recording: a Writer collects runs; Writer.Run starts the Recorder of one run;
// Recorder.Session wraps a contract.Session so that every typed call is
// recorded; Intend and LoseReply let the caller say what a call means to add and
// that its reply never reached the client; Recorder.Final reads a Note's final
// state back; Recorder.End hands the run to the Writer, which writes the file
// whole or not at all (WriteFile).
//
// The package knows the contract's types and tools. It knows nothing of
// experiments, editors, clocks or stores, and it judges nothing: deciding what a
// history means is package check's job.
package history
