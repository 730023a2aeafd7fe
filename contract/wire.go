package contract

import "context"

// Wire says how the runs of a Target reach a server: the MCP protocol
// version they ran on, how its sessions map onto the server's, and the
// replicas behind it. The zero Wire is a Target reached over no wire (an
// embedded store).
type Wire struct {
	// Protocol is the MCP protocol version the sessions negotiated:
	// "2026-07-28" (stateless), "2025-11-25" (sessions and ping), or older.
	Protocol string `json:"protocol,omitempty"`
	// Sessions is the session mode: SessionsPerEditor or SessionsShared.
	Sessions SessionMode `json:"mcp_sessions,omitempty"`
	// Replicas is how many servers the calls go to (a load balancer's
	// choice per call); 0 or 1 means one.
	Replicas int `json:"replicas,omitempty"`
	// Balance is how each call's replica is chosen, with several.
	Balance Balance `json:"balance,omitempty"`
}

// Wired is a Target reached over MCP: Wire says how.
type Wired interface {
	Wire() Wire
}

// SessionMode is how the sessions of a run map onto the server's MCP
// sessions.
type SessionMode string

// The session modes.
const (
	// SessionsPerEditor gives every editor an MCP session of its own, as two
	// processes would have: over stdio a server process each, over HTTP an
	// HTTP client each. The default.
	SessionsPerEditor SessionMode = "per-editor"
	// SessionsShared sends every editor's calls over one MCP session (over
	// stdio one server process, over HTTP one client), concurrently, as an
	// agent that makes parallel tool calls does.
	SessionsShared SessionMode = "shared"
)

// SessionModes are the values of a session mode.
var SessionModes = NewEnum("sessions setting", SessionsPerEditor, SessionsShared)

// Balance is how a call's replica is chosen among several.
type Balance string

// The balance policies.
const (
	// BalanceRandom draws each call's replica from a seeded random stream.
	BalanceRandom Balance = "random"
	// BalanceRoundRobin sends each call to the replica after the last one's.
	BalanceRoundRobin Balance = "round-robin"
)

// Balances are the values of a balance policy.
var Balances = NewEnum("balance policy", BalanceRandom, BalanceRoundRobin)

// Replicated is a Backend served by several replicas that share its Notes:
// a session of its own may be opened on one replica, every call of which
// goes there, for the checks that need a resend or a read to reach another
// replica than the first call.
type Replicated interface {
	// Replicas is how many replicas serve the Backend.
	Replicas() int
	// ReplicaSession opens a session whose calls all go to replica i, 0 to
	// Replicas()-1.
	ReplicaSession(ctx context.Context, i int) (Session, error)
}
