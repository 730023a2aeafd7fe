//go:build !race

package store

// raceDetector says the tests run under the race detector, which slows the
// embedded SQLite engine (transpiled C) tenfold.
const raceDetector = false
