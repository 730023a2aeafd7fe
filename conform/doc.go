// Package conform checks a target clause by clause against the Notes write
// contract and returns what it found as plain data (results.ConformReport,
// which report renders): one results.ConformCheck per clause, with
// its outcome (pass, fail, info where the write-ups leave the clause open, or
// n/a where the target cannot be held to it) and, for a failure, the
// evidence: the requests sent and the replies received.
//
// Each clause is declared once (clauses.go): its name, its text, the
// capabilities it calls and why a target may not be held to it. One runner
// checks them over typed contract.Sessions on every target alike: the
// embedded store, an MCP server with the contract's own tools, and a server
// reached through a profile, which says what its writes carry (Mapped). It
// writes to one Note of its own, through the tools alone, and judges from
// the replies and from what the tools read back. A session that traces its
// calls gives the wire's exchanges as evidence; for any other the runner
// records the typed request and what the call ended in.
//
// A call that ends otherwise than its clause expects (contract.OutcomeOf:
// a refusal, or an outcome nobody can tell) is evidence, not the end of the
// run: the clause fails with it, and the next clause runs. Only
// notesbench's own faults end a run: ctx ended, or the target could not
// open a run, its Note or a first session.
//
// Writes whose versions must come from distinct commit instants are made a
// couple of milliseconds apart, so that a millisecond timestamp version fails
// only the check made to catch it: two writes within one millisecond.
//
// conform knows the contract and nothing else: no transport, no storage, no
// editors, no output format.
package conform
