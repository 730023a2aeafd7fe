//go:build race

package mcpclient

// raceDetector says the tests run under the race detector.
const raceDetector = true
