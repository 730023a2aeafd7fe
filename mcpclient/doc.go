// Package mcpclient is the Notes contract over MCP: a contract.Target whose
// runs go to any MCP server that serves the seven tools, spawned over stdio or
// reached over streamable HTTP.
//
// # Targets
//
// Parse reads a target as the user writes it:
//
//	stdio:COMMAND [ARGS]     spawn COMMAND, speak MCP on its stdin and stdout
//	http://HOST:PORT/PATH    streamable HTTP
//
// Dial connects one control session, reads tools/list and checks that the
// contract's tools it lists have the contract's required fields
// (expected_version and idempotency_key on the writes, and every other one); a
// schema that differs is one error naming the target and the tool. Each
// experiment asks for the capabilities it uses (Require, contract.Capable): a
// server that lacks a tool one of them calls is one error naming the tools
// missing and the tools it lists. Every error names the target: unreachable,
// no MCP handshake, a tool missing, a server that died (with its exit status
// and the last line of its stderr).
//
// # Sessions
//
// Each Session is an MCP client session of its own, on a connection of its own,
// as two processes would be: over stdio a server process of its own, over HTTP
// a session (Mcp-Session-Id) on an HTTP client of its own. So over stdio the
// server must keep its Notes where all its processes see them (notesbench serve
// --db FILE does; a server that keeps them in memory is caught on the first
// session and refused). With Options.Sessions set to shared, every Session
// goes over the Target's one MCP session instead, concurrently, as an agent's
// parallel tool calls do.
//
// # Protocols and replicas
//
// Sessions negotiate the newest MCP protocol version the server speaks (the
// SDK's negotiation): 2026-07-28 first, stateless (server/discover, no
// initialize, no Mcp-Session-Id), then 2025-11-25 and older, with an
// initialize and a session; Options.Protocol pins one, and a server that does
// not speak it is an *UnspokenError. Wire (contract.Wired) says what ran.
// Ping is the cheapest round trip of the version: an MCP ping, or on
// 2026-07-28, which has none, a server/discover. An HTTP target of several
// URLs is one server's replicas: each link has a load balancer of its own
// (replicas.go) that sends each request to a replica by a seeded choice, so
// that a resend may reach another replica, and a 2025-11-25 session's
// requests to the replica that opened it; a run's Backend can open a session
// on one replica (contract.Replicated). A typed call marshals the request, calls the tool
// and turns an isError result back into the contract's typed error with
// contract.ErrorOf. Sessions also offer Ping (Pinger), the transport's floor,
// and a raw JSON call (Caller), for checks that must send what contract.Call
// would refuse locally. Sessions are safe for concurrent use.
//
// Every process a Target spawns is ended when its Session or the Target is
// closed, when it fails to start a session, and when the ctx it was spawned
// under is cancelled; it runs in a process group of its own, which is ended
// with it.
//
// # Notes
//
// A server keeps the Notes of every run it served, while each run names its
// Notes as it likes ("note-1"). A run's Backend maps its Note IDs to IDs of
// its own on the server (the run's name, a random nonce, then the run's ID) on
// every request and result, so a run never meets another's Notes and never
// sees the mapping. Every call goes through the one mapping path (mapArgs,
// the call, unmapResult): typed tools, the person's actions, raw calls and the
// Note's set-up alike; an empty note_id is sent as it is, for the server to
// refuse. Fresh Notes come from the server's notesbench_create_note
// extension when it offers one; a server without it can serve one run on a
// fresh Note the user names (Options.Note). The person's actions
// (contract.Person) are offered on a Session when the server lists the
// notesbench_ person tools; Require names them when an experiment needs them
// (contract.CapPerson). The extension tools' names and requests are
// contract/ext's, and every session declares ext.Capability in its
// initialize, which a notesbench server lists them for.
//
// # Profiles
//
// With Options.Profile a Target maps the contract onto a server's own tools
// (package profile): each of a run's Notes is a document the profile's set-up
// makes, its text is the document's content, a write is the profile's write
// (the whole content, a patch or an append, with the version and key where the
// tool takes them), and a reply the profile's conflict recognizes is a
// *contract.ConflictError. A server without versions gets the start of the
// content's SHA-256 as the version. Require asks for the profile's sections and
// their tools; the variant served is guard note when the profile's write
// checks the version, none otherwise. An extraction that finds nothing in a
// reply is a *profile.ExtractError; an error result the profile does not
// recognize is a *RefusedError.
//
// One client, two codecs (codec.go), chosen once when a Target is dialled:
// without a profile the contract passthrough (passthrough.go), through the
// built-in notes profile, whose calls are the contract's own; with one the
// profile interpreter (interpreter.go). Sessions, calls and their time
// bounds, faults, traces and the classification of replies are shared.
//
// # What the server decides
//
// A Target cannot choose the contract variant: the server serves the one it
// was started with. A run asks for the variant as served with the zero
// Variant; a run asking for another is refused with a *VariantError, unless
// the server says (notesbench_describe) that it serves exactly that one.
// Results over a Target should say "as served by" the target. Nor can a
// Target take the run's clock: the server commits on its own, so the caller
// must refuse a run on the virtual clock; Open ignores run.Clock.
//
// # Faults
//
// With Options.Faults a Target makes faults between the client and the
// server, on what it owns (faults.go): it SIGKILLs or SIGSTOPs the process
// groups it spawned (a stdio server, or an HTTP one it starts with
// Options.Spawn on a free loopback port, started again after a kill), drops
// a write's reply in the pipe after the server wrote it (over HTTP, in a
// loopback proxy it runs, which reads the server's whole response and
// closes the client's connection), and sends a write twice at once. Each
// run has faults of its own, on its sessions' processes and connections,
// on a schedule drawn from its seed (InjectFaults) or when asked (Killer).
// A session a fault ended opens again on its next call: a new process over
// stdio, a new session over HTTP. A call cut off, or without a reply within
// Options.CallTimeout, is an info outcome. Without faults none of this is
// on the path of a call.
//
// mcpclient knows MCP and the contract; it knows no storage, no editors and
// no experiments.
package mcpclient
