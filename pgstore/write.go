package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/notesbench/notesbench/contract"
)

// writeSpec describes one write transaction. A spec without a tool is a person's
// save from the app: no idempotency key and no version compare, but it bumps the
// version like any other write.
type writeSpec[R any] struct {
	tool     string
	noteID   string
	tabID    string // the tab whose content changes; "" for a Note-level write
	expected contract.Version
	key      string
	// request is the tool's request, whose arguments a variant that refuses
	// a key reused with other ones compares (contract.ArgsDigest).
	request any
	// needData loads the tab's stored content, for an apply that changes part
	// of it.
	needData bool
	// check validates the write against its target once the Note and the tab
	// are found, in the order of the contract's checks
	// (contract.Variant.CheckWrite); it must not write.
	check func(w *wtx, t *target) error
	// apply queues the change, knowing the version it will commit as.
	apply func(w *wtx, t *target, next contract.Version) (R, error)
}

// target is what a write found of its Note and tab: under the Note's lock,
// or in the snapshot of a SERIALIZABLE transaction.
type target struct {
	noteID      string
	noteVersion any
	nextTab     int64
	nextItem    int64
	// tabs is the number of tabs, loaded for a Note-level write.
	tabs int64

	tabID      string
	tabType    contract.TabType
	tabVersion any
	data       string
	// now is the time of the write: the run's clock, or the server's.
	now time.Time
}

// loaded is what the first batch of a write read.
type loaded struct {
	t      target
	found  contract.Found
	result string // the key's stored first result
}

// wtx is an open write transaction: its connection, and the changes queued to
// be sent with COMMIT.
type wtx struct {
	ctx     context.Context
	conn    *pgx.Conn
	prepare bool // the store's: see prepares
	stmts   []queued
}

// queue adds a change, sent with COMMIT.
func (w *wtx) queue(sql string, args ...any) { w.stmts = append(w.stmts, queued{sql, args}) }

// commit sends the queued changes and COMMIT in one round trip, and rolls
// the transaction back if one fails.
func (w *wtx) commit() error {
	w.queue("COMMIT")
	err := pipeline(w.ctx, w.conn, w.prepare, w.stmts, nil)
	if err != nil {
		rollback(w.ctx, w.conn)
	}
	return err
}

// errReplay ends a write transaction whose key was found: nothing is written.
var errReplay = errors.New("replay")

// runWrite is the write path every tool and save goes through, in one
// transaction of the Target's isolation mode (READ COMMITTED with the Note's
// row lock, or SERIALIZABLE without it): the Note's row, the contract's
// checks (idempotency lookup and version compare, in the order the variant
// says; contract.Variant.CheckWrite), apply, version bump, stored result,
// commit. A transaction that fails with a serialization failure or a
// deadlock runs again, from its BEGIN, after a jittered pause (retry); if it
// keeps failing, the write is reported as a conflict with the current
// version, which an editor answers by reading again. The session counts the
// retries (Session.Retries).
func runWrite[R any](ctx context.Context, c *Session, w writeSpec[R]) (R, error) {
	var res R
	cw := contract.Write{Tool: w.tool, NoteID: w.noteID, TabID: w.tabID}
	if w.tool != "" {
		var err error
		if cw.Expected, err = c.s.versions.Expected(w.expected); err != nil {
			return res, err
		}
		if c.s.variant.RefusesKeyReuse() {
			cw.Args = contract.ArgsDigest(w.request)
		}
	}
	if w.noteID == "" {
		return res, contract.Invalid("note_id", "required")
	}
	var next nextVersion
	retries, err := retry(ctx, c.pace, func() error {
		var err error
		res, err = tryWrite(ctx, c, w, cw, &next)
		return err
	})
	c.retries.Add(int64(retries))
	if errors.Is(err, errReplay) {
		return res, nil
	}
	if errors.Is(err, errRetriesExhausted) {
		// Each try was rolled back, but the write names no conflict: the
		// version it expected may well be current. What the client learns
		// is that the server could not decide, an outcome of kind busy.
		return *new(R), contract.Indeterminate(contract.KindBusy, err)
	}
	if err != nil {
		return *new(R), err
	}
	return res, nil
}

// tryWrite is one try of a write: one transaction, from BEGIN to COMMIT or
// ROLLBACK. next keeps the version the tries of one write commit.
func tryWrite[R any](ctx context.Context, c *Session, w writeSpec[R], cw contract.Write, next *nextVersion) (res R, err error) {
	s := c.s
	l, err := c.loadWrite(ctx, w.noteID, w.tabID, w.key, w.needData)
	if err != nil {
		return res, err
	}
	tx := &wtx{ctx: ctx, conn: c.conn, prepare: s.prepare, stmts: make([]queued, 0, 4)}
	// From here a transaction is open: every way out but the final batch
	// rolls it back.
	defer func() {
		if err != nil {
			rollback(ctx, c.conn)
		}
	}()
	t := &l.t
	tabScoped := s.variant.TabScoped(w.tabID)
	l.found.Current = s.variant.GuardedVersion(w.tabID, t.noteVersion, t.tabVersion)
	var check func() error
	if w.check != nil {
		check = func() error { return w.check(tx, t) }
	}
	replay, err := s.variant.CheckWrite(cw, l.found, check)
	if err != nil {
		return res, err
	}
	if replay {
		if err := contract.DecodeReplay(w.key, l.result, &res); err != nil {
			return res, err
		}
		return res, errReplay
	}
	v := next.next(s.versions, l.found.Current, t.now)
	if tabScoped {
		tx.queue(sqlBumpTab, v, w.noteID, w.tabID)
	} else {
		tx.queue(sqlBumpNote, v, w.noteID)
	}
	if res, err = w.apply(tx, t, toVersion(v)); err != nil {
		return res, err
	}
	if w.tool != "" {
		if err := storable("idempotency_key", w.key); err != nil {
			return res, err
		}
		stored, err := json.Marshal(res)
		if err != nil {
			return res, err
		}
		if cw.Args != "" {
			tx.queue(sqlStoreKeyArgs, w.noteID, w.key, w.tool, string(stored), cw.Args)
		} else {
			tx.queue(sqlStoreKey, w.noteID, w.key, w.tool, string(stored))
		}
	}
	if s.beforeCommit != nil {
		if err := s.beforeCommit(ctx, c.conn); err != nil {
			return res, err
		}
	}
	return res, tx.commit()
}

// loadWrite begins the transaction and reads what the checks need, in one
// round trip: BEGIN (naming the mode's isolation level, whatever the
// server's default), the Note's row (with its lock under READ COMMITTED),
// then the tab (or the Note's number of tabs), the key's first use and the
// server's clock. Under SERIALIZABLE any of these statements may fail with a
// serialization failure; the pipeline then stops at the first error, the
// transaction is rolled back, and the retry begins a new one.
func (c *Session) loadWrite(ctx context.Context, noteID, tabID, key string, needData bool) (*loaded, error) {
	l := &loaded{t: target{noteID: noteID, tabID: tabID}}
	load := queued{sqlLoadNote, []any{lookup(noteID), lookup(key)}}
	if tabID != "" {
		load = queued{sqlLoadTab, []any{lookup(noteID), lookup(tabID), lookup(key)}}
		if needData {
			load.sql = sqlLoadTabData
		}
	}
	stmts := []queued{{sql: c.s.begin}, {c.s.loadNote, []any{lookup(noteID)}}, load}
	read := false
	err := pipeline(ctx, c.conn, c.s.prepare, stmts, func(i int, fields []pgconn.FieldDescription, values [][]byte) error {
		row, err := decodeRow(fields, values)
		if err != nil {
			return err
		}
		switch i {
		case 1:
			return l.readNote(row)
		case 2:
			read = true
			return l.readLoad(row, tabID != "")
		}
		return nil
	})
	if err == nil && !read {
		err = errors.New("loading a write: the load returned no row")
	}
	if err != nil {
		rollback(ctx, c.conn)
		return nil, err
	}
	l.t.now = c.s.now(l.t.now)
	return l, nil
}

// decodeRow decodes every column of a row (see decode).
func decodeRow(fields []pgconn.FieldDescription, values [][]byte) ([]any, error) {
	row := make([]any, len(values))
	for i, v := range values {
		var err error
		if row[i], err = decode(fields[i], v); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// readNote takes the Note's row: version, next_tab, next_item.
func (l *loaded) readNote(row []any) error {
	if len(row) != 3 {
		return fmt.Errorf("loading a write: %d columns for the Note, want 3", len(row))
	}
	var ok1, ok2 bool
	l.t.noteVersion = row[0]
	l.t.nextTab, ok1 = row[1].(int64)
	l.t.nextItem, ok2 = row[2].(int64)
	if !ok1 || !ok2 {
		return fmt.Errorf("loading a write: the Note's counters are %T and %T", row[1], row[2])
	}
	l.found.NoteFound = true
	return nil
}

// readLoad takes the load's row: for a write to a tab its type, version,
// the key's tool and stored result, the server's clock and, when asked for,
// the tab's content; for a Note-level write the number of tabs, the key's
// tool and result and the clock.
func (l *loaded) readLoad(row []any, tab bool) error {
	want := 5
	if tab {
		want = 6
	}
	if len(row) < want {
		return fmt.Errorf("loading a write: %d columns, want %d", len(row), want)
	}
	l.found.FirstArgs, _ = row[len(row)-1].(string)
	var rest []any
	if tab {
		if typ, ok := row[0].(string); ok {
			l.found.TabFound = true
			l.t.tabType = contract.TabType(typ)
		}
		l.t.tabVersion = row[1]
		if len(row) > 6 {
			l.t.data, _ = row[5].(string)
		}
		rest = row[2:5]
	} else {
		l.t.tabs, _ = row[0].(int64)
		rest = row[1:4]
	}
	tool, okTool := rest[0].(string)
	result, okResult := rest[1].(string)
	if okTool && okResult {
		l.found.KeyFound, l.found.FirstTool, l.result = true, tool, result
	}
	server, ok := rest[2].(time.Time)
	if !ok {
		return fmt.Errorf("loading a write: the server's clock is %T", rest[2])
	}
	l.t.now = server
	return nil
}
