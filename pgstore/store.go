package pgstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/notesbench/notesbench/contract"
)

// Store is the Notes of one run: a schema of its own on the server and a pool of
// connections whose search_path is that schema. It is safe for concurrent use;
// each client takes its own Session, which holds one connection of the pool for
// its whole life, as a separate process would.
type Store struct {
	t       *Target
	pool    *pgxpool.Pool
	schema  string
	variant contract.Variant
	// clock is the run's clock; nil means the server's, clock_timestamp().
	clock contract.Clock

	// versions makes the versions the run's writes commit.
	versions *contract.Versions
	// prepare says the write path prepares its statements (see prepares).
	prepare bool
	// begin and loadNote are the first two statements of every write, as the
	// Target's isolation mode makes them (Isolation.statements).
	begin, loadNote string
	// seed seeds the jitter of every retry's pause; streams numbers the
	// jitter streams handed out (backoff).
	seed    uint64
	streams atomic.Uint64

	closeOnce sync.Once
	closeErr  error
	// shared marks a schema of OpenSchema's, which Close leaves in place.
	shared bool

	// beforeCommit, when set by a test, runs inside every write transaction
	// after its checks and before its changes are sent with COMMIT; an error it
	// returns aborts the write as a server error would.
	beforeCommit func(ctx context.Context, conn *pgx.Conn) error
}

func newStore(t *Target, pool *pgxpool.Pool, schema string, v contract.Variant, run contract.RunSpec) *Store {
	s := &Store{t: t, pool: pool, schema: schema, variant: v, clock: run.Clock,
		versions: contract.NewVersions(v.VersionFormat, run.Seed), prepare: prepares(pool), seed: run.Seed}
	s.begin, s.loadNote = t.isolation.statements()
	return s
}

// backoff returns the pacing of one session's or one set-up call's retries,
// with a jitter stream of its own.
func (s *Store) backoff() *backoff { return newBackoff(s.seed, s.streams.Add(1)) }

// Schema is the name of the run's schema: where its tables are while the run
// lasts, and after it when the Target keeps it.
func (s *Store) Schema() string { return s.schema }

// Variant is the contract variant the store serves, defaults filled in.
func (s *Store) Variant() contract.Variant { return s.variant }

// Close drops the run's schema, unless the Target keeps it or it is a shared
// one (OpenSchema), and closes the pool. Sessions must be closed first: the
// pool waits for their connections.
// When the server is gone the schema cannot be dropped; the error says so and
// names it.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		switch {
		case s.shared:
		case s.t.Keep:
			s.t.mu.Lock()
			s.t.kept = append(s.t.kept, s.schema)
			s.t.mu.Unlock()
		default:
			if _, err := s.pool.Exec(ctx, "DROP SCHEMA "+s.schema+" CASCADE"); err != nil {
				s.closeErr = s.t.fail("dropping schema "+s.schema+" (it stays on the server)", err)
			}
		}
		s.pool.Close()
	})
	return s.closeErr
}

// Session acquires a connection of its own for one client. Close it when done.
func (s *Store) Session(ctx context.Context) (contract.Session, error) {
	return s.Conn(ctx)
}

// Conn is Session returning the concrete type.
func (s *Store) Conn(ctx context.Context) (*Session, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, s.t.fail("opening a session", err)
	}
	return &Session{s: s, pc: c, conn: c.Conn(), pace: s.backoff()}, nil
}

// CreateNote creates a Note with the three fixed tabs, an empty text and its
// first version. It is set-up, not a tool: no version, no key. Creating a Note
// that exists is an error.
func (s *Store) CreateNote(ctx context.Context, noteID string) error {
	if noteID == "" {
		return contract.Invalid("note_id", "required")
	}
	if err := storable("note_id", noteID); err != nil {
		return err
	}
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.t.fail("creating a Note", err)
	}
	defer pc.Release()
	_, err = retry(ctx, s.backoff(), func() error {
		now, err := s.firstVersionTime(ctx, pc.Conn())
		if err != nil {
			return err
		}
		v := s.versions.First(now)
		b := &pgx.Batch{}
		b.Queue(s.begin)
		b.Queue(sqlInsertNote, noteID, v)
		for i, t := range contract.FixedTabs {
			b.Queue(sqlInsertTab, noteID, string(t), string(t), contract.DefaultLabel(t), i, contract.EmptyData(t), v)
		}
		b.Queue("COMMIT")
		return sendAll(ctx, pc.Conn(), b)
	})
	if isUnique(err, "notes_pkey") {
		return contract.Invalid("note_id", "note %q exists", noteID)
	}
	if err != nil {
		return s.t.fail("creating a Note", err)
	}
	return nil
}

// firstVersionTime is the time a new Note's first version is made at: the
// run's clock, or the server's for a timestamp version on the real clock.
func (s *Store) firstVersionTime(ctx context.Context, conn *pgx.Conn) (time.Time, error) {
	if s.clock != nil || s.variant.VersionFormat == contract.FormatCounter {
		return s.now(time.Time{}), nil
	}
	var now time.Time
	err := conn.QueryRow(ctx, sqlClock).Scan(&now)
	return now, err
}

// now is the time of a write: the run's clock when it has one, else server:
// the server's clock_timestamp(), read under the Note's lock.
func (s *Store) now(server time.Time) time.Time {
	if s.clock != nil {
		return s.clock.Now()
	}
	return server
}

// toVersion turns a stored version into a Version.
func toVersion(v any) contract.Version { return contract.VersionOf(v) }

// storable rejects a string PostgreSQL's text type cannot hold: one with a NUL
// byte or invalid UTF-8. SQLite stores such strings; this is the one place the
// two stores differ, and only for strings no client of the JSON layer can send
// (JSON has no invalid UTF-8) but a NUL.
func storable(field, s string) error {
	if !canStore(s) {
		return contract.Invalid(field, "holds a NUL character or invalid UTF-8, which PostgreSQL text cannot store")
	}
	return nil
}

func canStore(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// lookup is the value to look an identifier up by: itself, or "" for one that
// cannot have been stored, which matches nothing (no Note, tab or key has an
// empty identifier).
func lookup(id string) string {
	if canStore(id) {
		return id
	}
	return ""
}

// sendAll sends b and reads every result; the first error wins. When b began a
// transaction that did not end, it is rolled back.
func sendAll(ctx context.Context, conn *pgx.Conn, b *pgx.Batch) error {
	br := conn.SendBatch(ctx, b)
	var first error
	for range b.Len() {
		if _, err := br.Exec(); err != nil {
			first = err
			break
		}
	}
	if err := br.Close(); err != nil && first == nil {
		first = err
	}
	if first != nil {
		rollback(ctx, conn)
	}
	return first
}

// rollback ends a transaction left open by an error, so that the connection is
// clean for its next use. On a broken connection there is nothing to end: the
// server rolled back when the connection dropped, and the pool discards it.
func rollback(ctx context.Context, conn *pgx.Conn) {
	if conn.IsClosed() || conn.PgConn().TxStatus() == 'I' {
		return
	}
	_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
}
