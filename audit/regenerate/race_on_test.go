//go:build race

package main

// raceDetector says the tests run under the race detector.
const raceDetector = true
