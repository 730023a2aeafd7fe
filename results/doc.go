// Package results is plain data: the published figures of the two write-ups (one
// embedded file), the result and row types with their JSON keys, summaries and
// statistics, verdicts, and baselines with their comparison.
//
// It does no I/O beyond reading and writing its own files, runs nothing and prints
// nothing.
package results
