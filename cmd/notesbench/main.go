// Command notesbench rebuilds the osFoundry Notes write contract on SQLite and
// measures, by scripted races between an agent and a person, what each clause of
// that contract prevents.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// wireGCPercent is the garbage collector's target of a process that speaks
// MCP (serve, and a run against a server) when GOGC is not set: 400, not
// Go's 100. Every message the SDK decodes allocates a 32 KiB read buffer, so
// a call makes some 300 KiB of garbage on each side while the live heap stays
// a few MiB, and at 100 the collector runs every few dozen calls and takes a
// fifth of the CPU. At 400, over stdio, a write took 10 % less (BenchmarkWire,
// alternated). The embedded store's writes, whose garbage is small, ran 1-7 %
// slower at 400 (fresher memory for each allocation): they keep Go's default.
const wireGCPercent = 400

// wireGC sets wireGCPercent unless the user chose with GOGC.
func wireGC() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(wireGCPercent)
	}
}
