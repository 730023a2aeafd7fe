package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
)

func (s *Store) Conn(ctx context.Context) (*Conn, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening connection: %w", err)
	}
	return &Conn{s: s, c: c, stmts: map[string]driver.Stmt{}}, nil
}

// Conn is one editor's connection. Its methods are the seven tools, the JSON
// layer Call and the person's tab-bar actions. A Conn is not safe for concurrent
// use: give each goroutine its own.
//
// Every statement runs inside a transaction (see tx), which holds the
// connection's driver connection for its whole length and runs its statements
// on it directly: database/sql's per-statement bookkeeping (locks, argument
// checks, Rows and Scan) cost more than some of the statements themselves.
type Conn struct {
	s *Store
	c *sql.Conn
	// stmts and hot are the driver statements of this connection, prepared once
	// on first use: hot holds those every transaction or write runs, found by
	// index rather than by hashing their text.
	stmts map[string]driver.Stmt
	hot   [numHot]driver.Stmt
	// dc and txCtx are set while a transaction is open: the driver connection
	// its statements run on, and the context they run with (see tx).
	dc    driver.Conn
	txCtx context.Context
	// args is the argument buffer of the statement being run.
	args []driver.NamedValue
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
	hotReadTab
	numHot
)

var hotSQL = [numHot]string{
	hotBegin:          "BEGIN",
	hotBeginImmediate: "BEGIN IMMEDIATE",
	hotCommit:         "COMMIT",
	hotRollback:       "ROLLBACK",
	// hotLoadTab reads, in one statement, what a write to a tab checks: the
	// Note's version, the tab's type and version (NULLs when there is no such
	// tab) and the tool that first used the key (NULL when the key is new).
	// Arguments: tab_id, key, note_id.
	hotLoadTab: `SELECT n.version, t.type, t.version, i.tool
FROM notes n
LEFT JOIN tabs t ON t.note_id = n.id AND t.tab_id = ?
LEFT JOIN idempotency i ON i.note_id = n.id AND i.key = ?
WHERE n.id = ?`,
	// hotLoadNote is hotLoadTab for a Note-level write: the Note's version and
	// counters instead of a tab. Arguments: key, note_id.
	hotLoadNote: `SELECT n.version, n.next_tab, n.next_item, i.tool
FROM notes n
LEFT JOIN idempotency i ON i.note_id = n.id AND i.key = ?
WHERE n.id = ?`,
	// hotReplay reads the first result stored under a key that is known.
	hotReplay:   `SELECT result FROM idempotency WHERE note_id = ? AND key = ?`,
	hotBumpNote: `UPDATE notes SET version = ? WHERE id = ?`,
	hotBumpTab:  `UPDATE tabs SET version = ? WHERE note_id = ? AND tab_id = ?`,
	hotSetData:  `UPDATE tabs SET data = ? WHERE note_id = ? AND tab_id = ?`,
	hotStoreKey: `INSERT INTO idempotency (note_id, key, tool, result) VALUES (?, ?, ?, ?)`,
	hotReadTab:  `SELECT n.version, t.version, t.type, t.label, t.data FROM notes n JOIN tabs t ON t.note_id = n.id WHERE n.id = ? AND t.tab_id = ?`,
}

// Close releases the connection and its prepared statements.
func (c *Conn) Close() error {
	errs := []error{c.c.Raw(func(any) error {
		var errs []error
		for _, st := range c.stmts {
			errs = append(errs, st.Close())
		}
		for i, st := range c.hot {
			if st != nil {
				errs = append(errs, st.Close())
				c.hot[i] = nil
			}
		}
		return errors.Join(errs...)
	})}
	c.stmts = nil
	errs = append(errs, c.c.Close())
	return errors.Join(errs...)
}

// errNoTx reports a statement run outside a transaction: a bug in the store.
var errNoTx = errors.New("store: statement outside a transaction")

// prepare prepares query on the transaction's driver connection.
func (c *Conn) prepare(ctx context.Context, query string) (driver.Stmt, error) {
	if c.dc == nil {
		return nil, errNoTx
	}
	if p, ok := c.dc.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, query)
	}
	return c.dc.Prepare(query)
}

// stmt returns the statement for query, prepared once per connection.
func (c *Conn) stmt(ctx context.Context, query string) (driver.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

// hotStmt returns the hot-path statement id, prepared once per connection.
func (c *Conn) hotStmt(ctx context.Context, id hotStmt) (driver.Stmt, error) {
	if st := c.hot[id]; st != nil {
		return st, nil
	}
	st, err := c.prepare(ctx, hotSQL[id])
	if err != nil {
		return nil, err
	}
	c.hot[id] = st
	return st, nil
}

// stmtCtx returns the context a statement of the open transaction runs on: the
// transaction's context without cancellation, once ctx is checked. A done ctx
// still fails the next statement, and so the transaction, but a statement that
// runs is not watched: the SQLite driver starts a watcher goroutine for every
// statement run on a cancellable context, which costs more than the
// statements of a write together, and inside a transaction nothing waits for a
// lock (BEGIN took it), so there is nothing a watcher could usefully interrupt.
func (c *Conn) stmtCtx(ctx context.Context) (context.Context, error) {
	if c.txCtx == nil {
		return nil, errNoTx
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.txCtx, nil
}

// bind converts args as database/sql would for a driver without its own
// converter, into the connection's argument buffer.
func (c *Conn) bind(args []any) ([]driver.NamedValue, error) {
	nv := c.args[:0]
	for i, a := range args {
		var v driver.Value
		switch a := a.(type) {
		case nil, string, int64, float64, bool, []byte:
			v = a
		case int:
			v = int64(a)
		default:
			var err error
			if v, err = driver.DefaultParameterConverter.ConvertValue(a); err != nil {
				return nil, fmt.Errorf("converting argument %d type %T: %w", i+1, a, err)
			}
		}
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	c.args = nv
	return nv, nil
}

// execStmt runs st, which returns no rows, with args.
func (c *Conn) execStmt(ctx context.Context, st driver.Stmt, args []any) (driver.Result, error) {
	nv, err := c.bind(args)
	if err != nil {
		return nil, err
	}
	se, ok := st.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("store: the SQLite driver's statements cannot run with a context")
	}
	return se.ExecContext(ctx, nv)
}

// queryStmt runs st with args and returns its rows.
func (c *Conn) queryStmt(ctx context.Context, st driver.Stmt, args []any) (*rows, error) {
	nv, err := c.bind(args)
	if err != nil {
		return nil, err
	}
	sq, ok := st.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("store: the SQLite driver's statements cannot run with a context")
	}
	r, err := sq.QueryContext(ctx, nv)
	if err != nil {
		return nil, err
	}
	return &rows{r: r, vals: make([]driver.Value, len(r.Columns()))}, nil
}

// coldStmt asks prepared for a statement by its text rather than a hot one.
const coldStmt hotStmt = -1

// prepared checks the open transaction's context and returns the context its
// statements run on, with the statement: hot statement id, or query when id is
// coldStmt. Each is prepared once per connection.
func (c *Conn) prepared(ctx context.Context, id hotStmt, query string) (context.Context, driver.Stmt, error) {
	sctx, err := c.stmtCtx(ctx)
	if err != nil {
		return nil, nil, err
	}
	var st driver.Stmt
	if id == coldStmt {
		st, err = c.stmt(sctx, query)
	} else {
		st, err = c.hotStmt(sctx, id)
	}
	return sctx, st, err
}

func (c *Conn) exec(ctx context.Context, query string, args ...any) (driver.Result, error) {
	sctx, st, err := c.prepared(ctx, coldStmt, query)
	if err != nil {
		return nil, err
	}
	return c.execStmt(sctx, st, args)
}

// execHot runs a hot-path statement that returns no rows.
func (c *Conn) execHot(ctx context.Context, id hotStmt, args ...any) error {
	sctx, st, err := c.prepared(ctx, id, "")
	if err != nil {
		return err
	}
	_, err = c.execStmt(sctx, st, args)
	return err
}

func (c *Conn) queryRow(ctx context.Context, query string, args ...any) *row {
	r, err := c.query(ctx, query, args...)
	return &row{rows: r, err: err}
}

// queryRowHot runs a hot-path statement that returns at most one row.
func (c *Conn) queryRowHot(ctx context.Context, id hotStmt, args ...any) *row {
	sctx, st, err := c.prepared(ctx, id, "")
	if err != nil {
		return &row{err: err}
	}
	r, err := c.queryStmt(sctx, st, args)
	return &row{rows: r, err: err}
}

func (c *Conn) query(ctx context.Context, query string, args ...any) (*rows, error) {
	sctx, st, err := c.prepared(ctx, coldStmt, query)
	if err != nil {
		return nil, err
	}
	return c.queryStmt(sctx, st, args)
}

// inTx runs fn inside BEGIN IMMEDIATE … COMMIT, rolling back when fn fails. A
// write transaction takes the write lock up front, so it never fails with
// SQLITE_BUSY half-way: it waits for the lock at BEGIN.
func (c *Conn) inTx(ctx context.Context, fn func() error) error {
	return c.tx(ctx, hotBeginImmediate, fn)
}

// inReadTx runs fn in a deferred transaction, so that several reads see one
// snapshot.
func (c *Conn) inReadTx(ctx context.Context, fn func() error) error {
	return c.tx(ctx, hotBegin, fn)
}

// tx runs fn between begin and COMMIT, holding the connection's driver
// connection throughout. ctx is checked before BEGIN and before every
// statement, and a done ctx rolls the transaction back, but the statements run
// on ctx without its cancellation (see stmtCtx). So BEGIN IMMEDIATE waits for
// the write lock until it is free or the busy timeout passes, even when ctx
// ends meanwhile: under the tool's own contention a wait lasts as long as one
// other write.
func (c *Conn) tx(ctx context.Context, begin hotStmt, fn func() error) error {
	if c.dc != nil {
		return errors.New("store: a transaction is already open on this connection")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return c.c.Raw(func(dc any) (err error) {
		c.dc, c.txCtx = dc.(driver.Conn), context.WithoutCancel(ctx)
		defer func() { c.dc, c.txCtx = nil, nil }()
		if err := c.execHot(c.txCtx, begin); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		// A panic inside the transaction must not leave it open: that would hold
		// SQLite's write lock for as long as the connection lives.
		defer func() {
			if p := recover(); p != nil {
				_ = c.execHot(c.txCtx, hotRollback)
				err = fmt.Errorf("store: panic inside a transaction (rolled back): %v", p)
			}
		}()
		err = fn()
		if err == nil && begin != hotBegin && c.s.beforeCommit != nil {
			err = c.s.beforeCommit()
		}
		if err != nil {
			// Roll back even when ctx is done, so the connection is clean for reuse.
			if rerr := c.execHot(c.txCtx, hotRollback); rerr != nil {
				return errors.Join(err, fmt.Errorf("rollback: %w", rerr))
			}
			return err
		}
		if err := c.execHot(ctx, hotCommit); err != nil {
			_ = c.execHot(c.txCtx, hotRollback)
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	})
}
