//go:build race

package crash

// raceDetector says the tests run under the race detector, which slows the
// store and every child tenfold.
const raceDetector = true
