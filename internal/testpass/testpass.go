package testpass

import "testing"

// Large skips t under the race detector, and in the quick loop (-short): t
// is a large test, which the second pass (make test-large) runs. why says
// what makes it large.
func Large(t testing.TB, why string) {
	t.Helper()
	if Race || testing.Short() {
		t.Skip(why + ": make test-large runs it")
	}
}

// Sized returns small under the race detector (the first pass) and in the
// quick loop (-short), and full otherwise (the second pass, and a plain go
// test): the size of a test that both passes run, the second at the size
// the docs cite. It is called from a test, once flags are parsed.
func Sized[T any](small, full T) T {
	if Race || testing.Short() {
		return small
	}
	return full
}
