package contract

// Synchronous is how durable a commit is, in SQLite's words so that one
// setting serves every store. On SQLite it is PRAGMA synchronous. On
// PostgreSQL SyncNormal runs with synchronous_commit off (a commit returns
// before its WAL record is flushed: a crash may lose the last commits, never
// corrupt) and SyncFull with synchronous_commit on.
type Synchronous string

// The synchronous settings. The zero Synchronous means SyncNormal.
const (
	SyncNormal Synchronous = "normal"
	SyncFull   Synchronous = "full"
)

// SynchronousSettings is the enum of the synchronous settings.
var SynchronousSettings = NewEnum("synchronous setting", SyncNormal, SyncFull)
