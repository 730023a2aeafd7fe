package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"zombiezen.com/go/sqlite"

	"github.com/notesbench/notesbench/contract"
)

// InMemory is the path that opens a private in-memory database instead of a file.
// Its connections share one database through SQLite's memdb VFS, with the same
// locking as a file but no journal on disk: for fast statistical runs.
const InMemory = ":memory:"

var memdbSeq atomic.Uint64

// Store is one SQLite database holding Notes under one contract variant. It is
// safe for concurrent use; each editor takes its own Conn, as a separate process
// would hold its own connection.
type Store struct {
	uri  string // what every connection opens
	wal  bool   // a file in WAL mode, not a memdb database
	opts Options
	// queue hands the write lock over in Go when opts.QueueWrites is set.
	queue *writeQueue
	// ckpt runs the WAL checkpoints of a file store that queues its writes.
	ckpt *checkpointer
	// versions makes the versions the store's writes commit.
	versions *contract.Versions

	mu     sync.Mutex
	idle   []*sqlConn // open connections no Conn holds, for the next Conn
	out    int        // Conns not closed yet
	closed bool

	// beforeCommit, when set by a test, runs after a write was applied and before
	// it commits; an error it returns aborts the write.
	beforeCommit func() error
}

// Open opens (creating if needed) the database at path with the given options.
// A path of InMemory opens a private in-memory database. A file database runs in
// WAL mode with a busy timeout. A file the store did not create (another
// program's database, or no database at all) is refused with a *ForeignError
// and left as it is; the store marks its own with ApplicationID.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	s := &Store{
		uri:      uri(path),
		wal:      path != InMemory,
		opts:     opts,
		versions: contract.NewVersions(opts.VersionFormat, opts.Seed),
	}
	if path == InMemory {
		if m := takeMemDB(opts.Synchronous); m != nil {
			s.uri, s.idle = m.uri, m.conns
			if err := s.startQueue(); err != nil {
				s.Close()
				return nil, fmt.Errorf("opening store %q: %w", path, err)
			}
			return s, nil
		}
	}
	// A file must be the store's before any connection changes it.
	script := schemaSQL
	if s.wal {
		if err := claim(path, s.uri); err != nil {
			return nil, fmt.Errorf("opening store %q: %w", path, err)
		}
		script = claimSQL + schemaSQL
	}
	// The first connection creates the schema and stays open, idle, for the
	// first Conn: an in-memory database lives as long as one of its
	// connections.
	db, err := s.openConn()
	if err != nil {
		return nil, fmt.Errorf("opening store %q: %w", path, err)
	}
	// One transaction for the whole schema: one commit instead of four.
	if err := execScript(db, "BEGIN IMMEDIATE;"+script+"COMMIT;"); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store %q: creating schema: %w", path, err)
	}
	if err := addArgsColumn(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store %q: %w", path, err)
	}
	s.idle = append(s.idle, &sqlConn{db: db})
	if err := s.startQueue(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store %q: %w", path, err)
	}
	return s, nil
}

// startQueue starts, for a store that queues its writes, the write queue and,
// on a file, the checkpointer, each on a connection of its own.
func (s *Store) startQueue() error {
	if !s.opts.QueueWrites {
		return nil
	}
	if s.wal {
		db, err := s.openConn()
		if err != nil {
			return err
		}
		s.ckpt = startCheckpointer(db)
	}
	db, err := s.openConn()
	if err != nil {
		if s.ckpt != nil {
			s.ckpt.close()
		}
		return err
	}
	s.queue = startWriteQueue(s, db)
	return nil
}

// uri is the SQLite URI of the database at path: a file, or for InMemory a
// memdb database of a name no other store uses, shared by the connections
// that open it.
func uri(path string) string {
	if path == InMemory {
		return fmt.Sprintf("file:/notesbench-%d?vfs=memdb", memdbSeq.Add(1))
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath()
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
	args    TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (note_id, key)
) WITHOUT ROWID, STRICT;
`

// argsColumnSQL adds the digest of a key's arguments to a database made
// before the store kept it: its keys read as kept without one, and are
// replayed whatever a resend's arguments (contract.Found.FirstArgs).
const argsColumnSQL = `ALTER TABLE idempotency ADD COLUMN args TEXT NOT NULL DEFAULT ''`

// Options returns the options the store was opened with, defaults filled in.
func (s *Store) Options() Options { return s.opts }

// Close closes the database. Conns must be closed first; one closed later
// closes its connection then. With Options.QueueWrites, Close waits for the
// group being committed; a write still waiting for the queue, or made on a
// Conn after Close, fails with errStoreClosed.
//
// An in-memory store closed with every Conn closed gives its database, emptied
// and with its connections open, to the next in-memory store (see memPool).
func (s *Store) Close() error {
	s.mu.Lock()
	idle, out := s.idle, s.out
	s.idle, s.closed = nil, true
	s.mu.Unlock()
	var errs []error
	if s.queue != nil {
		errs = append(errs, s.queue.close())
	}
	if s.ckpt != nil {
		errs = append(errs, s.ckpt.close())
	}
	if !s.wal && out == 0 && len(idle) > 0 && errors.Join(errs...) == nil {
		return putMemDB(s.opts.Synchronous, &memDB{uri: s.uri, conns: idle})
	}
	for _, sc := range idle {
		errs = append(errs, sc.close())
	}
	return errors.Join(errs...)
}

// putIdle keeps sc open for a later Conn, or closes it when the store is
// closed or keeps enough connections already.
func (s *Store) putIdle(sc *sqlConn) error {
	s.mu.Lock()
	s.out--
	if !s.closed && len(s.idle) < maxIdle {
		s.idle = append(s.idle, sc)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return sc.close()
}

// Driver names the SQLite implementation the store runs on.
const Driver = "zombiezen.com/go/sqlite over modernc.org/sqlite, pure Go"

// EngineVersion reports the version of the embedded SQLite library, as the
// library itself reports it, or "unknown" when it cannot be read.
var EngineVersion = sync.OnceValue(func() string {
	db, err := sqlite.OpenConn(":memory:", sqlite.OpenReadWrite|sqlite.OpenMemory|sqlite.OpenNoMutex)
	if err != nil {
		return "unknown"
	}
	defer db.Close()
	st, _, err := db.PrepareTransient("SELECT sqlite_version()")
	if err != nil {
		return "unknown"
	}
	defer st.Finalize()
	if row, err := st.Step(); err != nil || !row {
		return "unknown"
	}
	return st.ColumnText(0)
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
		if err := c.exec(ctx, `INSERT INTO notes (id, version, next_tab, next_item) VALUES (?, ?, 1, 1)`, noteID, v); err != nil {
			if sqlite.ErrCode(err).ToPrimary() == sqlite.ResultConstraint {
				return contract.Invalid("note_id", "note %q exists", noteID)
			}
			return err
		}
		for i, t := range contract.FixedTabs {
			if err := c.exec(ctx, `INSERT INTO tabs (note_id, tab_id, type, label, position, data, version) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				noteID, string(t), string(t), contract.DefaultLabel(t), i, contract.EmptyData(t), v); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}
