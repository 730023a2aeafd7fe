package pgstore

// What BenchmarkVsPgbench (vspgbench_test.go, of package pgstore_test, since
// it imports the pgbench peer, which imports this package) times.
var (
	WriteRound      = writeRound
	NotesbenchWrite = notesbenchWrite
	DriverWrite     = driverWrite
	Median          = median
)
