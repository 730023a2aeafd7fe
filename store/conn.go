package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"zombiezen.com/go/sqlite"
)

// Conn opens a connection of its own for one editor. Close it when done.
//
// The connection may be one an earlier Conn of this store closed: the store
// keeps closed connections open, with their prepared statements, for the next
// Conn, as database/sql keeps idle connections.
func (s *Store) Conn(ctx context.Context) (*Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("opening connection: %w", err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("opening connection: the store is closed")
	}
	s.out++
	if n := len(s.idle); n > 0 {
		sc := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.mu.Unlock()
		return &Conn{s: s, sc: sc}, nil
	}
	s.mu.Unlock()
	db, err := s.openConn()
	if err != nil {
		s.mu.Lock()
		s.out--
		s.mu.Unlock()
		return nil, fmt.Errorf("opening connection: %w", err)
	}
	return &Conn{s: s, sc: &sqlConn{db: db}}, nil
}

// maxIdle is how many closed connections a store keeps open for later Conns.
const maxIdle = 64

// Conn is one editor's connection. Its methods are the seven tools and the
// person's tab-bar actions. A Conn belongs to one goroutine at a time: it runs
// on an SQLite connection opened without SQLite's own mutex, so a call made
// while another goroutine's call on the same Conn is running panics instead of
// corrupting the connection. Calls one after another from different goroutines
// are fine.
//
// Every statement runs inside a transaction (see tx), prepared once per
// connection on first use.
type Conn struct {
	s *Store
	// sc is the SQLite connection; nil once the Conn is closed.
	sc *sqlConn
	// busy is set while a transaction runs: the check that catches two
	// goroutines using the Conn at once.
	busy atomic.Bool
	// txOpen is set while a transaction is open; it is read and written only by
	// the goroutine that holds busy, or by the store's writer while it runs a
	// write of the Conn (see writeQueue).
	txOpen bool
	// job is the Conn's write in the store's write queue, reused.
	job job
}

// sqlConn is an SQLite connection with its prepared statements: hot holds
// those every transaction or write runs, found by index; cold the others, by
// their text. The store keeps it open when its Conn is closed.
type sqlConn struct {
	db   *sqlite.Conn
	hot  [numHot]*stmt
	cold map[string]*stmt
}

// hotStmt names a statement of the hot path.
type hotStmt int

// The statements of the hot path; hotSQL holds their text.
const (
	hotBegin hotStmt = iota
	hotBeginImmediate
	hotCommit
	hotRollback
	hotLoadTab
	hotLoadNote
	hotReplay
	hotBumpNote
	hotBumpTab
	hotSetData
	hotStoreKey
	hotStoreKeyArgs
	hotReadTab
	hotSavepoint
	hotRollbackTo
	hotRelease
	numHot
)

var hotSQL = [numHot]string{
	hotBegin:          "BEGIN",
	hotBeginImmediate: "BEGIN IMMEDIATE",
	hotCommit:         "COMMIT",
	hotRollback:       "ROLLBACK",
	// hotLoadTab reads, in one statement, what a write to a tab checks: the
	// Note's version, the tab's type and version (NULLs when there is no such
	// tab), the tool that first used the key and the digest of its arguments
	// (NULLs when the key is new). Arguments: tab_id, key, note_id.
	hotLoadTab: `SELECT n.version, t.type, t.version, i.tool, i.args
FROM notes n
LEFT JOIN tabs t ON t.note_id = n.id AND t.tab_id = ?
LEFT JOIN idempotency i ON i.note_id = n.id AND i.key = ?
WHERE n.id = ?`,
	// hotLoadNote is hotLoadTab for a Note-level write: the Note's version and
	// counters instead of a tab. Arguments: key, note_id.
	hotLoadNote: `SELECT n.version, n.next_tab, n.next_item, i.tool, i.args
FROM notes n
LEFT JOIN idempotency i ON i.note_id = n.id AND i.key = ?
WHERE n.id = ?`,
	// hotReplay reads the first result stored under a key that is known.
	hotReplay:   `SELECT result FROM idempotency WHERE note_id = ? AND key = ?`,
	hotBumpNote: `UPDATE notes SET version = ? WHERE id = ?`,
	hotBumpTab:  `UPDATE tabs SET version = ? WHERE note_id = ? AND tab_id = ?`,
	hotSetData:  `UPDATE tabs SET data = ? WHERE note_id = ? AND tab_id = ?`,
	hotStoreKey: `INSERT INTO idempotency (note_id, key, tool, result) VALUES (?, ?, ?, ?)`,
	// hotStoreKeyArgs stores the digest of the arguments too, for a variant
	// that refuses a key reused with other ones (contract.KeyRefuse).
	hotStoreKeyArgs: `INSERT INTO idempotency (note_id, key, tool, result, args) VALUES (?, ?, ?, ?, ?)`,
	hotReadTab:      `SELECT n.version, t.version, t.type, t.label, t.data FROM notes n JOIN tabs t ON t.note_id = n.id WHERE n.id = ? AND t.tab_id = ?`,
	// A write in a group commit (see writeQueue) runs between a savepoint and
	// its release, and rolls back to the savepoint when it fails.
	hotSavepoint:  "SAVEPOINT write",
	hotRollbackTo: "ROLLBACK TO write",
	hotRelease:    "RELEASE write",
}

// Close hands the connection back to the store, which keeps it open for a
// later Conn (or closes it, when the store keeps enough). Closing a closed Conn
// does nothing.
func (c *Conn) Close() error {
	c.enter()
	sc := c.sc
	c.sc = nil
	c.leave()
	if sc == nil {
		return nil
	}
	return c.s.putIdle(sc)
}

// close closes the SQLite connection and its statements.
func (sc *sqlConn) close() error {
	sc.hot, sc.cold = [numHot]*stmt{}, nil
	return sc.db.Close()
}

// errConcurrentUse is the panic of a Conn used by two goroutines at once.
var errConcurrentUse = errors.New("store: a Conn is used by two goroutines at once (give each goroutine its own)")

// enter marks the Conn in use by the calling goroutine, and panics when it is
// in use already: by another goroutine, or by a transaction of this one.
func (c *Conn) enter() {
	if !c.busy.CompareAndSwap(false, true) {
		panic(errConcurrentUse)
	}
}

func (c *Conn) leave() { c.busy.Store(false) }

// errNoTx reports a statement run outside a transaction: a bug in the store.
var errNoTx = errors.New("store: statement outside a transaction")

// hotStmt returns the hot-path statement id, prepared once per connection,
// once ctx is checked.
func (c *Conn) hotStmt(ctx context.Context, id hotStmt) (*stmt, error) {
	if !c.txOpen {
		return nil, errNoTx
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.sc.hotStmt(id)
}

// hotStmt returns the hot-path statement id, prepared on first use.
func (sc *sqlConn) hotStmt(id hotStmt) (*stmt, error) {
	if st := sc.hot[id]; st != nil {
		return st, nil
	}
	st, err := prepare(sc.db, hotSQL[id])
	if err != nil {
		return nil, err
	}
	sc.hot[id] = st
	return st, nil
}

// execHot runs a hot-path statement that returns no rows and takes no
// arguments (BEGIN, COMMIT, SAVEPOINT …).
func (sc *sqlConn) execHot(id hotStmt) error {
	st, err := sc.hotStmt(id)
	if err != nil {
		return err
	}
	return st.exec()
}

// stmt returns the statement for query, prepared once per connection, once
// ctx is checked.
func (c *Conn) stmt(ctx context.Context, query string) (*stmt, error) {
	if !c.txOpen {
		return nil, errNoTx
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if st, ok := c.sc.cold[query]; ok {
		return st, nil
	}
	st, err := prepare(c.sc.db, query)
	if err != nil {
		return nil, err
	}
	if c.sc.cold == nil {
		c.sc.cold = map[string]*stmt{}
	}
	c.sc.cold[query] = st
	return st, nil
}

// exec runs query, which returns no rows, with args.
func (c *Conn) exec(ctx context.Context, query string, args ...any) error {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return err
	}
	if err := st.bindAll(args); err != nil {
		return err
	}
	return st.exec()
}

// execHot runs a hot-path statement that returns no rows and takes no
// arguments (BEGIN, COMMIT, ROLLBACK).
func (c *Conn) execHot(ctx context.Context, id hotStmt) error {
	st, err := c.hotStmt(ctx, id)
	if err != nil {
		return err
	}
	return st.exec()
}

// query runs query with args and returns its rows; close them when done.
func (c *Conn) query(ctx context.Context, query string, args ...any) (*rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if err := st.bindAll(args); err != nil {
		return nil, err
	}
	return &rows{st: st}, nil
}

// queryRow runs query with args for at most one row.
func (c *Conn) queryRow(ctx context.Context, query string, args ...any) *row {
	st, err := c.stmt(ctx, query)
	if err == nil {
		err = st.bindAll(args)
	}
	return &row{rows: rows{st: st}, err: err}
}

// inTx runs fn inside BEGIN IMMEDIATE … COMMIT, rolling back when fn or the
// commit hook fails. A write transaction takes the write lock up front, so it
// never fails with SQLITE_BUSY half-way: it waits for the lock at BEGIN. With
// Options.QueueWrites, fn runs instead in the store's write queue, on its
// writer connection, within a group commit (see writeQueue).
func (c *Conn) inTx(ctx context.Context, fn func() error) error {
	return c.tx(ctx, hotBeginImmediate, fn)
}

// inReadTx runs fn in a deferred transaction, so that several reads see one
// snapshot.
func (c *Conn) inReadTx(ctx context.Context, fn func() error) error {
	return c.tx(ctx, hotBegin, fn)
}

// errClosed is what a Conn's methods return after Close.
var errClosed = errors.New("store: the connection is closed")

// tx runs fn between begin and COMMIT. ctx is checked before BEGIN and before
// every statement, and a done ctx rolls the transaction back, but statements
// are not interrupted once they run: BEGIN IMMEDIATE waits for the write lock
// until it is free or the busy timeout passes, even when ctx ends meanwhile.
// Under the tool's own contention a wait lasts as long as one other write.
func (c *Conn) tx(ctx context.Context, begin hotStmt, fn func() error) (err error) {
	c.enter()
	defer c.leave()
	if c.sc == nil {
		return errClosed
	}
	if c.txOpen {
		return errors.New("store: a transaction is already open on this connection")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	write := begin == hotBeginImmediate
	if q := c.s.queue; write && q != nil {
		return q.do(ctx, c, fn)
	}
	c.txOpen = true
	defer func() { c.txOpen = false }()
	// Transaction control runs without ctx: once begun, a transaction ends.
	bg := context.Background()
	if err := c.execHot(bg, begin); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	// A panic inside the transaction must not leave it open: that would hold
	// SQLite's write lock for as long as the connection lives.
	defer func() {
		if p := recover(); p != nil {
			_ = c.execHot(bg, hotRollback)
			err = fmt.Errorf("store: panic inside a transaction (rolled back): %v", p)
		}
	}()
	err = fn()
	if err == nil && write && c.s.beforeCommit != nil {
		err = c.s.beforeCommit()
	}
	if err != nil {
		// Roll back even when ctx is done, so the connection is clean for reuse.
		if rerr := c.execHot(bg, hotRollback); rerr != nil {
			return errors.Join(err, fmt.Errorf("rollback: %w", rerr))
		}
		return err
	}
	if err := ctx.Err(); err != nil {
		_ = c.execHot(bg, hotRollback)
		return fmt.Errorf("commit: %w", err)
	}
	if err := c.execHot(bg, hotCommit); err != nil {
		_ = c.execHot(bg, hotRollback)
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IntegrityCheck runs SQLite's PRAGMA integrity_check and returns "ok", or the
// first problem it reports.
func (c *Conn) IntegrityCheck(ctx context.Context) (string, error) {
	var first string
	err := c.inReadTx(ctx, func() error { return c.queryRow(ctx, "PRAGMA integrity_check").Scan(&first) })
	if err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	return first, nil
}
