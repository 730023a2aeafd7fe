// Package crash is the kill -9 test of the SQLite store: the store runs in a
// child process, editors write through it and record a history, and the child
// is killed with SIGKILL at seeded random moments and restarted, again and
// again. At the end the database must pass PRAGMA integrity_check and package
// check must find every acknowledged write in the final state.
//
// The child speaks a small JSON Lines protocol on its standard input and
// output (Serve): one request per line, tagged with a session and an id; it
// answers a write only after the store's COMMIT returned, so an answer is an
// acknowledgement. The parent (Run) starts children with a command its caller
// gives (notesbench re-executing itself, or a test binary), so that the
// package needs no binary of its own.
//
// It knows the store and the contract's JSON layer; it is a test of the store,
// not an experiment.
package crash
