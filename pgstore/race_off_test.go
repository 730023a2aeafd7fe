//go:build !race

package pgstore

// raceDetector says the tests run under the race detector.
const raceDetector = false
