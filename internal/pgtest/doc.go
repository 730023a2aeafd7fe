// Package pgtest gives tests a PostgreSQL server: the one NOTESBENCH_POSTGRES_URL
// names, or a throwaway cluster started from the local server binaries once per
// test binary and removed when the tests end, however they end.
//
// A package that uses it runs its tests through Run from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
//
// and a test asks for a server with URL(t). When no server can be had, the test
// skips with one line saying why, unless NOTESBENCH_REQUIRE_POSTGRES=1, when it
// fails instead (CI sets it, so that a missing server is never a silent pass).
// Once the tests end and the cluster is stopped, Run checks that no goroutine
// outlived them (go.uber.org/goleak): only then is the cluster's own gone.
//
// pgtest knows how to start and stop PostgreSQL and nothing else: no store, no
// contract, no experiment.
package pgtest
