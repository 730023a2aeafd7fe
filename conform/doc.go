// Package conform checks a target clause by clause against the Notes write
// contract and returns what it found as plain data: one Check per clause, with
// its outcome (pass, fail, or info where the write-ups leave the clause open)
// and, for a failure, the evidence: the requests sent and the replies received.
//
// It runs on any contract.Target: one over MCP (package mcpclient), whose
// tools/list it checks and to which it sends JSON arguments as they are, or an
// embedded one, called through contract.Call, the JSON layer an embedded
// server applies. It writes to one Note of its own, through the tools alone,
// and judges from the replies and from what the tools read back.
//
// Writes whose versions must come from distinct commit instants are made a
// couple of milliseconds apart, so that a millisecond timestamp version fails
// only the check made to catch it: two writes within one millisecond.
//
// conform knows the contract and nothing else: no transport, no storage, no
// editors, no output format.
package conform
