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
// By default every write runs under READ COMMITTED (named in its BEGIN,
// whatever the server's default) and first locks its Note's row
// (SELECT … FOR UPDATE): writes to one Note run one at a time, as SQLite's
// write lock makes them, and writes to different Notes do not wait for each
// other. The idempotency lookup, the version compare and the apply come after
// the lock, each statement seeing what the previous holder committed, so a
// stale expected version is a clean conflict (version_conflict with the
// current version) and a resent key finds its first result. The idempotency
// key is also the table's primary key, a unique constraint. With one row lock
// per transaction, taken first, neither a serialization failure (SQLSTATE
// 40001) nor a deadlock (40P01) can occur.
//
// The URL parameter notesbench_isolation=serializable selects the mode
// CockroachDB and YugabyteDB need, where SERIALIZABLE is how transactions
// run: every write runs under SERIALIZABLE and takes no lock. Two writes that
// race on one Note both read it; the server lets one commit and refuses the
// other with a serialization failure, at any statement (the reads of the
// first pipeline included) or at COMMIT. The refused write's transaction is
// rolled back and runs again from its BEGIN; it then sees the winner's
// version and is a clean conflict, or commits if nothing it depends on
// changed. SERIALIZABLE also refuses writes that touched no common row (on
// PostgreSQL its predicate locks cover index pages, shared by neighbouring
// keys): those commit on a retry. The parameter is taken out of the URL
// before the driver sees it; any other value is refused naming it.
//
// In both modes a transaction that fails with a serialization failure, a
// deadlock or a second first use of one key runs again, up to ten times,
// after a pause drawn at random from [c/2, c), c doubling from 1 ms to at
// most 50 ms; after that the write is reported as a conflict with the
// current version, which an editor answers by reading again. Neither ever
// reaches an editor as a failure. Each session counts its retries
// (Session.Retries). The jitter of each session comes from a stream of its
// own, seeded by the run's seed; the pause is real time even under the
// virtual clock, where one editor runs at a time, no transactions overlap and
// so none is refused; should one be, the pause costs no virtual time and the
// retry commits the version the first try drew, so the run's results do not
// change.
//
// A write takes two round trips when nothing else is needed: BEGIN, the Note's
// row (and its lock) and the loads in one pipeline; the changes, the stored
// result and COMMIT in the next. The write path sends them through pgconn,
// pgx's wire layer, with statements prepared once per connection (pipe.go;
// unnamed statements when the URL names another query exec mode, as for a
// pooler in transaction mode); reads and set-up use pgx. On Linux a connection waits for its
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
// SQLite store reads its clock inside BEGIN IMMEDIATE. (In the Serializable
// mode it is read in the transaction's snapshot, after the previous write to
// the Note committed, or the write would be refused.) now() would not do: it
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
