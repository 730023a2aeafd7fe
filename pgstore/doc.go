// Package pgstore serves the write contract of the Notes connector on
// PostgreSQL: the seven tools, the person's actions and every contract
// variant, behind the same seam as the SQLite store and with the same rules
// (package contract), so that the same calls give the same results on both.
//
// # Runs
//
// A Target names a server by URL. Each run (Target.Open) gets a schema of its
// own, created with its tables in one transaction and dropped by the Backend's
// Close, unless the Target keeps it (Keep, Kept, Store.Schema); Close waits
// for the run's Sessions to be closed first. Each run has
// its own pgxpool whose connections have the schema as their search_path; a
// Session holds one connection for its whole life, as each editor of the
// published setup holds its own. The Synchronous setting maps to
// synchronous_commit: normal to off, full to on.
//
// # Isolation and locking
//
// Every write runs under READ COMMITTED (named in its BEGIN, whatever the
// server's default) and first locks its Note's row
// (SELECT … FOR UPDATE): writes to one Note run one at a time, as SQLite's
// write lock makes them, and writes to different Notes do not wait for each
// other. The idempotency lookup, the version compare and the apply come after
// the lock, each statement seeing what the previous holder committed, so a
// stale expected version is a clean conflict (version_conflict with the
// current version) and a resent key finds its first result. The idempotency
// key is also the table's primary key, a unique constraint.
//
// SERIALIZABLE was not chosen: racing writers would fail with serialization
// failures (SQLSTATE 40001) where the contract wants a conflict naming the
// current version, and each failure costs a retry. Under READ COMMITTED with
// one row lock per transaction, taken first, neither a serialization failure
// nor a deadlock (40P01) can occur; should one ever occur (a statement added
// later, a server that behaves otherwise), the transaction runs again, up
// to ten times, and after that the write is reported as a conflict with the
// current version, which an editor answers by reading again. Neither ever
// reaches an editor as a failure.
//
// A write takes two round trips when nothing else is needed: BEGIN, the lock
// and the loads in one pipeline; the changes, the stored result and COMMIT in
// the next. The write path sends them through pgconn, pgx's wire layer, with
// statements prepared once per connection (pipe.go; unnamed statements when
// the URL names another query exec mode, as for a pooler in transaction
// mode); reads and set-up use pgx. On Linux a connection waits for its
// socket in poll(2) rather than in Go's network poller (dial_linux.go): a
// reply then wakes the waiting thread once, as it wakes a C client, instead
// of passing through the poller's thread.
//
// # Time
//
// Timestamp versions, tab IDs and creation times come from the run's clock
// when it has one (the virtual clock) and from the server otherwise: the
// server's clock_timestamp(), read under the Note's lock, so a version is the
// time of the write, taken while no other write to the Note can run, as the
// SQLite store reads its clock inside BEGIN IMMEDIATE. now() would not do: it
// is the time the transaction began, before it waited for the lock, so a
// write that waited would be stamped earlier than the write it follows, and
// two writes that began in the same millisecond would collide however far
// apart they committed.
//
// Versions are made by contract.Versions, as the SQLite store makes them: the
// random suffix of us-suffix versions comes from a PCG seeded with the run's
// seed, so a run on the virtual clock gives the same versions on both stores.
//
// # What differs from SQLite
//
// PostgreSQL's text type cannot hold a NUL character or invalid UTF-8; SQLite
// stores them. A write that would store such a string (a text, a label, a
// title, an idempotency key) is refused as an invalid argument naming the
// field; a lookup by such an identifier finds nothing, as it would on SQLite.
//
// # Errors
//
// Contract outcomes are the contract's typed errors. Any other failure (the
// server unreachable, a login refused, a schema that may not be created, a
// server gone mid-run) is an *Error: one line naming the URL without its
// password, what was being done and the cause.
//
// pgstore knows PostgreSQL and the contract, nothing else: no editors, no
// experiments, no printing.
package pgstore
