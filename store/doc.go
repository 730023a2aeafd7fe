// Package store rebuilds the write contract of the osFoundry Notes MCP connector on
// SQLite: a Note with tabs, the seven tools (four reads, three writes guarded by an
// expected version and an idempotency key), and the person's tab-bar actions.
//
// Every write runs in one BEGIN IMMEDIATE transaction: idempotency lookup, version
// compare, apply, version bump, stored result, commit. Nothing is written on a
// conflict or an error. The options select what the experiments vary: the version
// scope (Guard), the version format and the order of the two checks.
//
// A Conn is a contract.Session: the simulation calls its typed methods, and
// contract.Call puts the JSON layer in front of it (arguments validated against
// the embedded tools/list schema, conflicts and errors as result objects, as an
// MCP server would).
//
// SQLite is modernc.org/sqlite's engine (pure Go), called through
// zombiezen.com/go/sqlite rather than database/sql: each Conn has an SQLite
// connection of its own, opened without SQLite's connection mutex, with every
// statement prepared once. A Conn therefore belongs to one goroutine at a time
// (a call racing another on the same Conn panics). Writers wait for SQLite's
// write lock in its busy handler, as separate processes do, or, with
// Options.QueueWrites, in a queue in Go whose writer commits the writes that
// wait together, each within a savepoint of its own.
//
// store knows SQLite and the contract, nothing else: no editors, no experiments, no
// printing. Time comes from an injected Clock, never from time.Now.
package store
