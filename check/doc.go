// Package check judges histories (package history) from what they hold alone:
// the calls the clients made, what they saw, the faults injected, and the final
// state read back at the end of each run. It is the second opinion on an
// experiment's counts, and the only opinion on a server notesbench cannot look
// inside.
//
// Run applies five checks to every run of every history:
//
//   - linearizability: each versioned register (a Note's version, or a tab's
//     under guard tab) under compare-and-set writes, checked with porcupine,
//     one partition per register;
//   - versions: every committed write makes a version no other committed write
//     of its register made (timestamp versions cut to milliseconds break this);
//   - lost-updates: every acknowledged line, cell, tab and source is in the
//     final state;
//   - duplicates: no intent created more than one tab, source or line, and a
//     replayed key returned its first result;
//   - stale-overwrites: no write replaced content that changed, by another
//     acknowledged write, after the read the write's content came from.
//
// Outcomes are Jepsen's, and judged as Jepsen and porcupine judge them: an ok
// call happened; a fail definitely did not (it changed nothing, and only a
// conflict says anything of the version: that it differed from the one
// expected, and, when the reply named it, what it was); an info write may or
// may not have taken effect, and the linearizability search allows both; an
// info read observes nothing.
//
// Each check's verdict is ok, violated, unknown or n/a. Unknown: no violation
// found, but part of the runs could not be judged (out of time, no final
// state, no linearization to judge on), or the histories hold no run (nothing
// to judge), or one was cut short (no end line; a violation in what it holds
// stands). N/a: the check is no rule of the runs it was given, and none could
// be judged by it: the versions check on digest and opaque versions
// (contract.VersionFormat.Ordered), which need not change with every commit.
// N/a is neither ok nor unknown; the run's own verdict
// (results.CheckRun.Versions) says n/a for each such run, and a check that
// judged other runs says which it did not apply to in its reason.
//
// Each violation described names the faults of its run that came before it
// (for a lost write, those since the write); results.CheckRun.Faults counts
// them, and porcupine's page marks them on its timeline.
//
// A served history (history.ExperimentServe: what notesbench serve
// recorded of every call of its clients, and of the person who edited
// beside them) gets four checks more, of its clients (agents.go): the
// person's lines lost, each with the client write that dropped it
// (person-lines); texts committed on an older version than the one sent
// (stale-writes); resends under a new idempotency key (key-changes); tabs
// named by label or position (tab-references). results.CheckReport.Agents
// holds each client, named by its MCP clientInfo, with what it did after
// each conflict and a verdict: careful or careless.
//
// What Run returns is plain data of package results (results.CheckReport,
// with the checks' names and verdicts), so that report renders it without
// importing check.
//
// The package must stay independent of what made the histories: it imports
// neither sim nor any store, only the history format, the contract's types,
// the records of results (and porcupine), so that its verdicts are an
// opinion of their own.
package check
