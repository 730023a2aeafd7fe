package testpass

import "testing"

// Large skips t under the race detector: t is a large test, which the
// second pass (make test-large) runs. why says what makes it large.
func Large(t testing.TB, why string) {
	t.Helper()
	if Race {
		t.Skip(why + ": make test-large runs it")
	}
}

// Sized returns small under the race detector (the first pass) and full
// without it (the second pass, and a plain go test): the size of a test
// that both passes run, the second at the size the docs cite.
func Sized[T any](small, full T) T {
	if Race {
		return small
	}
	return full
}
