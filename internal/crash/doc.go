// Package crash is the kill -9 test of a server: editors write through it
// and record a history while the server processes of their sessions are
// killed with SIGKILL at seeded random moments, again and again; each
// session starts its server again on its next call, with the same command.
// After the last kill every acknowledged write must be in the final state,
// the document must still read, and the checks of package check must find
// nothing wrong with the history; for the embedded store the database must
// also pass PRAGMA integrity_check.
//
// The server is any MCP server notesbench starts (a stdio target, or an
// HTTP one it spawns), reached through mcpclient with its faults, the
// contract's own tools or a profile's; the embedded store is notesbench
// serve over stdio on a database of the test's own. There is one wire
// protocol: MCP. The caller opens the targets (Test.Open), so that the
// package names no client.
//
// Command is the test as notesbench runs it, composed once for notesbench
// crash and for the audit's crash column: the embedded store served by the
// running program, the history headed by the command line that reruns the
// test, its record. Request is the test as a user asks for it, checked
// (Settings) before anything runs, each refusal naming its setting.
//
// Its settings and runs are records of package results (results.CrashSettings,
// results.CrashRun), which report renders without importing this package.
//
// It is a test of a server's promises under kill -9, not an experiment.
package crash
