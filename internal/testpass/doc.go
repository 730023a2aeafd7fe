// Package testpass says which of the two passes of notesbench's tests runs a
// test, so that each test runs once at the size it needs.
//
// The first pass is make test: every test under the race detector, which
// slows the embedded SQLite engine tenfold and sees nothing of what child
// processes do. The second pass is make test-large: without the detector,
// only the tests the first pass left out (Large: end-to-end tests against
// child processes, real npm servers, the committed reproduction) or ran
// smaller (Sized, or any test that reads Race), at the sizes the docs cite.
//
// Which tests the second pass runs is read from the test files, not kept in
// a list: a top-level test is large when its body, or a function of its
// package's test files that it calls, refers to this package
// (scripts/largetests finds them and runs go test on them alone). A test
// that refers to nothing here runs in the first pass only.
//
// It is imported by tests alone, and imports nothing of the project.
package testpass
