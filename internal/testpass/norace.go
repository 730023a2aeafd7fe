//go:build !race

package testpass

// Race says the tests were built with the race detector: the first pass.
const Race = false
