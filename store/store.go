package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/notesbench/notesbench/contract"
)

// InMemory is the path that opens a private in-memory database instead of a file.
// Its connections share one database through SQLite's memdb VFS, with the same
// locking as a file but no journal on disk: for fast statistical runs.
const InMemory = ":memory:"

// busyTimeoutMS is how long a connection waits for the write lock before SQLite
// gives up with SQLITE_BUSY. Writes are short, so this is far above any wait the
// tool's own contention creates.
const busyTimeoutMS = 30000

var memdbSeq atomic.Uint64

// Store is one SQLite database holding Notes under one contract variant. It is
// safe for concurrent use; each editor takes its own Conn, as a separate process
// would hold its own connection.
type Store struct {
	db   *sql.DB
	opts Options

	randMu sync.Mutex
	rand   *rand.Rand // random suffixes of us-suffix versions

	// beforeCommit, when set by a test, runs after a write was applied and before
	// it commits; an error it returns aborts the write.
	beforeCommit func() error
}

// Open opens (creating if needed) the database at path with the given options.
// A path of InMemory opens a private in-memory database. A file database runs in
// WAL mode with a busy timeout.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path, opts.Synchronous))
	if err != nil {
		return nil, fmt.Errorf("opening store %q: %w", path, err)
	}
	db.SetMaxIdleConns(64)
	s := &Store{
		db:   db,
		opts: opts,
		rand: rand.New(rand.NewPCG(opts.Seed, 0x6e6f746573)),
	}
	if _, err := db.Exec(schemaSQL); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store %q: creating schema: %w", path, err)
	}
	return s, nil
}

func dsn(path string, sync Synchronous) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "synchronous("+strings.ToUpper(string(sync))+")")
	if path == InMemory {
		q.Set("vfs", "memdb")
		return fmt.Sprintf("file:/notesbench-%d?%s", memdbSeq.Add(1), q.Encode())
	}
	q.Add("_pragma", "journal_mode(WAL)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

const schemaSQL = `
CREATE TABLE IF NOT EXISTS notes (
	id        TEXT PRIMARY KEY,
	version   ANY NOT NULL,
	next_tab  INTEGER NOT NULL,
	next_item INTEGER NOT NULL
) WITHOUT ROWID, STRICT;
CREATE TABLE IF NOT EXISTS tabs (
	note_id  TEXT NOT NULL,
	tab_id   TEXT NOT NULL,
	type     TEXT NOT NULL,
	label    TEXT NOT NULL,
	position INTEGER NOT NULL,
	data     TEXT NOT NULL,
	version  ANY NOT NULL,
	PRIMARY KEY (note_id, tab_id)
) WITHOUT ROWID, STRICT;
CREATE TABLE IF NOT EXISTS attachments (
	note_id    TEXT NOT NULL,
	kind       TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	id         TEXT NOT NULL,
	title      TEXT NOT NULL,
	url        TEXT NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (note_id, kind, seq)
) WITHOUT ROWID, STRICT;
CREATE TABLE IF NOT EXISTS idempotency (
	note_id TEXT NOT NULL,
	key     TEXT NOT NULL,
	tool    TEXT NOT NULL,
	result  TEXT NOT NULL,
	PRIMARY KEY (note_id, key)
) WITHOUT ROWID, STRICT;
`

// Options returns the options the store was opened with, defaults filled in.
func (s *Store) Options() Options { return s.opts }

// Close closes the database. Conns must be closed first.
func (s *Store) Close() error { return s.db.Close() }

// Driver names the SQLite implementation the store runs on.
const Driver = "modernc.org/sqlite, pure Go"

// EngineVersion reports the version of the embedded SQLite library, or
// "unknown" when it cannot be read.
var EngineVersion = sync.OnceValue(func() string {
	db, err := sql.Open("sqlite", dsn(InMemory, SyncNormal))
	if err != nil {
		return "unknown"
	}
	defer db.Close()
	var v string
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&v); err != nil {
		return "unknown"
	}
	return v
})

// CreateNote creates a Note with the three fixed tabs (markdown, files, sources),
// an empty text and its first version. It is set-up, not a tool: it takes no
// version and no key. Creating a Note that exists is an error.
func (s *Store) CreateNote(ctx context.Context, noteID string) error {
	if noteID == "" {
		return contract.Invalid("note_id", "required")
	}
	c, err := s.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	err = c.inTx(ctx, func() error {
		v := s.firstVersion()
		if _, err := c.exec(ctx, `INSERT INTO notes (id, version, next_tab, next_item) VALUES (?, ?, 1, 1)`, noteID, v); err != nil {
			if strings.Contains(err.Error(), "UNIQUE") {
				return contract.Invalid("note_id", "note %q exists", noteID)
			}
			return err
		}
		for i, t := range contract.FixedTabs {
			if _, err := c.exec(ctx, `INSERT INTO tabs (note_id, tab_id, type, label, position, data, version) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				noteID, string(t), string(t), contract.DefaultLabel(t), i, contract.EmptyData(t), v); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// Conn opens a connection of its own for one editor. Close it when done.
