package mcpclient

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
)

// StatelessVersion is the first MCP protocol version without sessions: no
// initialize handshake and no ping, server/discover in their place, and the
// client's capabilities in every request's _meta.
const StatelessVersion = "2026-07-28"

// Protocols are the MCP protocol versions a Target can speak, newest first:
// the SDK's.
func Protocols() []string { return mcp.SupportedProtocolVersions() }

// CheckProtocol checks a version for Options.Protocol: "" (negotiate the
// newest) or one of Protocols.
func CheckProtocol(v string) error {
	if v == "" || slices.Contains(Protocols(), v) {
		return nil
	}
	return fmt.Errorf("%q is not an MCP protocol version notesbench speaks (want %s)", v, contract.Choice(Protocols()))
}

// UnspokenError is a server that does not speak the protocol version a
// Target was pinned to (Options.Protocol).
type UnspokenError struct {
	Target, Want, Got string
}

func (e *UnspokenError) Error() string {
	return fmt.Sprintf("target %s does not speak MCP protocol %s: it negotiated %s", e.Target, e.Want, e.Got)
}

// negotiated checks the version a new session negotiated against the one
// the Target was pinned to, and keeps the first session's as the Target's.
func (t *Target) negotiated(cs *mcp.ClientSession) error {
	got := ""
	if r := cs.InitializeResult(); r != nil {
		got = r.ProtocolVersion
	}
	if want := t.opts.Protocol; want != "" && got != want {
		return &UnspokenError{Target: t.name, Want: want, Got: got}
	}
	t.mu.Lock()
	if t.protocol == "" {
		t.protocol = got
	}
	t.mu.Unlock()
	return nil
}

// Protocol is the MCP protocol version the Target's sessions negotiated.
func (t *Target) Protocol() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.protocol
}

// stateless reports whether the session negotiated a protocol without
// sessions.
func (c *conn) stateless() bool {
	r := c.session().InitializeResult()
	return r != nil && r.ProtocolVersion >= StatelessVersion
}

// ping makes the cheapest round trip the session's protocol has, one that
// touches no tool: an MCP ping up to 2025-11-25, and a server/discover on
// 2026-07-28, which has no ping.
func (c *conn) ping(ctx context.Context) error {
	if c.stateless() {
		_, err := mcp.CallCustomMethod[*mcp.DiscoverParams, *mcp.DiscoverResult](ctx, c.session(), "server/discover", &mcp.DiscoverParams{})
		return err
	}
	return c.session().Ping(ctx, nil)
}

// floorCall names the round trip ping makes.
func (c *conn) floorCall() string {
	if c.stateless() {
		return "server/discover"
	}
	return "ping"
}

// Wire says how the Target's runs reach the server (contract.Wired).
func (t *Target) Wire() contract.Wire {
	w := contract.Wire{Protocol: t.Protocol(), Sessions: t.sessionMode()}
	if len(t.replicas) > 1 {
		w.Replicas, w.Balance = len(t.replicas), t.balance()
	}
	return w
}

// sessionMode is the Target's session mode, the default filled in.
func (t *Target) sessionMode() contract.SessionMode {
	if t.opts.Sessions == "" {
		return contract.SessionsPerEditor
	}
	return t.opts.Sessions
}

// describeWire is what Describe says of the wire: the protocol, the
// sessions and the replicas.
func (t *Target) describeWire() string {
	w := t.Wire()
	var parts []string
	if w.Protocol != "" {
		p := "MCP " + w.Protocol
		if w.Protocol >= StatelessVersion {
			p += " (stateless)"
		}
		parts = append(parts, p)
	}
	if w.Sessions == contract.SessionsShared {
		parts = append(parts, "one MCP session shared by every editor")
	} else {
		parts = append(parts, "one MCP session per editor")
	}
	if w.Replicas > 1 {
		parts = append(parts, fmt.Sprintf("%d replicas, %s", w.Replicas, w.Balance))
	}
	return "; " + strings.Join(parts, ", ")
}

// shared returns the one session every editor's calls go over, in the
// shared session mode: the Target's own, which lives as long as the Target.
// It is nil in the per-editor mode, before the Target's own session exists,
// and for a session asked of one replica (ReplicaSession).
func (t *Target) shared(ctx context.Context) *conn {
	if t.sessionMode() != contract.SessionsShared || t.control == nil {
		return nil
	}
	if _, pinned := ctx.Value(replicaKey{}).(int); pinned {
		return nil
	}
	return t.control
}

var _ contract.Wired = (*Target)(nil)
