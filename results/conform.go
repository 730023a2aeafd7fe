package results

import (
	"encoding/json"

	"github.com/notesbench/notesbench/contract"
)

// The records of package conform: the clauses of the contract it held a
// target to, as conform returns them and report renders them.

// ConformOutcome is the verdict of one clause conform checked.
type ConformOutcome string

// The outcomes of a clause. ConformInfo reports what a target does where the contract leaves
// the clause open: it is neither a pass nor a failure.
const (
	ConformPass ConformOutcome = "pass"
	ConformFail ConformOutcome = "fail"
	ConformInfo ConformOutcome = "info"
	// ConformNotApplicable is a clause the target cannot be held to: it lacks what
	// the clause is about (a version parameter, an idempotency key, a tool,
	// versions with an order), as Detail says.
	ConformNotApplicable ConformOutcome = "n/a"
)

// ConformExchange is one call as it went: the tool, the arguments sent and the reply
// received, or the error the call ended in. For a session that traces its
// calls (a profile's) these are the server's own tools and replies; for any
// other they are the contract's tool, the typed request as JSON and the
// result object (a contract outcome's as the tools report it).
type ConformExchange struct {
	Tool    string          `json:"tool"`
	Request json.RawMessage `json:"request"`
	Reply   json.RawMessage `json:"reply,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// ConformCheck is one clause checked.
type ConformCheck struct {
	Name    string         `json:"name"`
	Clause  string         `json:"clause"`
	Outcome ConformOutcome `json:"outcome"`
	// Detail says what was seen, in a sentence.
	Detail string `json:"detail"`
	// Evidence holds, for a failure, the exchanges that show it.
	Evidence []ConformExchange `json:"evidence,omitempty"`
}

// ConformReport is every clause checked of one target, in order.
type ConformReport struct {
	Target   string `json:"target"`
	Describe string `json:"describe"`
	// VersionFormat names the target's versions as what they are (counter,
	// ms, us-suffix, digest, opaque); empty when the target does not say.
	VersionFormat contract.VersionFormat `json:"version_format,omitempty"`
	// Protocol is the MCP protocol version the checks ran on, and Replicas
	// how many replicas they reached; empty for an embedded target.
	Protocol string         `json:"protocol,omitempty"`
	Replicas int            `json:"replicas,omitempty"`
	Checks   []ConformCheck `json:"checks"`
	Passed   int            `json:"passed"`
	Failed   int            `json:"failed"`
	Info     int            `json:"info"`
	// NotApplicable counts the clauses the target cannot be held to.
	NotApplicable int `json:"not_applicable"`
}
