// Command notesbench rebuilds the osFoundry Notes write contract on SQLite and
// measures, by scripted races between an agent and a person, what each clause of
// that contract prevents.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	setGCPercent()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// gcPercent is the garbage collector's target when GOGC is not set: 400,
// not Go's 100. Every MCP message the SDK decodes allocates a 32 KiB read
// buffer, so over the wire a call makes some 300 KiB of garbage on each side
// while the live heap stays a few MiB, and at 100 the collector runs every few
// dozen calls and takes a fifth of the CPU. At 400, over stdio, a write took
// 10 % less (BenchmarkWire, alternated); the heap of a virtual race grew from
// 33 to 43 MiB.
const gcPercent = 400

// setGCPercent sets gcPercent unless the user chose with GOGC.
func setGCPercent() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(gcPercent)
	}
}
