// Command engine prints the SQLite library notesbench's store embeds, for
// scripts/bench-peers.sh, which records the SQLite version of every peer:
//
//	sqlite_version 3.54.1
//	driver zombiezen.com/go/sqlite over modernc.org/sqlite v1.62.0, pure Go
package main
