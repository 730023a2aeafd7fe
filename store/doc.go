// Package store rebuilds the write contract of the osFoundry Notes MCP connector on
// SQLite: a Note with tabs, the seven tools (four reads, three writes guarded by an
// expected version and an idempotency key), and the person's tab-bar actions.
//
// Every write runs in one BEGIN IMMEDIATE transaction: idempotency lookup, version
// compare, apply, version bump, stored result, commit. Nothing is written on a
// conflict or an error. The options select what the experiments vary: the version
// scope (Guard), the version format and the order of the two checks.
//
// The package has two entry points over one implementation: typed methods on Conn,
// which the simulation calls, and Conn.Call, a JSON layer that validates arguments
// against the embedded tools/list schema and returns conflicts and errors as result
// objects, as an MCP server would.
//
// store knows SQLite and the contract, nothing else: no editors, no experiments, no
// printing. Time comes from an injected Clock, never from time.Now.
package store
