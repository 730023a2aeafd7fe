// Package pgbench is the benchmark peer of the PostgreSQL store: it runs
// PostgreSQL's own pgbench, at one client, on a script whose transaction is
// the store's write (pgstore.Target.WriteStatements), so that bench can time
// notesbench's write beside the same transaction sent by a C program. It is
// a peer for a benchmark, not part of a store: pgstore knows nothing of it.
package pgbench
