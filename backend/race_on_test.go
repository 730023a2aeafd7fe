//go:build race

package backend

// raceDetector says the tests run under the race detector.
const raceDetector = true
