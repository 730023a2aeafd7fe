//go:build !race

package sim

// raceDetector says the tests run under the race detector.
const raceDetector = false
