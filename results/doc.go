// Package results is plain data: the published figures of the two write-ups (one
// embedded file), the result and row types with their JSON keys, summaries and
// statistics, verdicts, and baselines with their comparison; and the records
// of the commands that are not experiments — check's (CheckReport), conform's
// (ConformReport) and the kill -9 test's (CrashSettings, CrashRun) — which
// those packages return and report renders, and a shard's (ShardRecord,
// ReproduceShard) with the checks that a set of them is one whole run
// (ReadShards), which notesbench merge reads back, so that report imports no
// package that runs anything.
//
// It does no I/O beyond reading and writing its own files, runs nothing and prints
// nothing.
package results
