//go:build !race

package crash

// raceDetector says the tests run under the race detector.
const raceDetector = false
