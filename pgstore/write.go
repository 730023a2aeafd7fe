package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

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
	// needData loads the tab's stored content, for an apply that changes part
	// of it.
	needData bool
	// check validates the write against its target before any version or key is
	// looked at; it must not write.
	check func(w *wtx, t *target) error
	// apply queues the change, knowing the version it will commit as.
	apply func(w *wtx, t *target, next contract.Version) (R, error)
}

// target is what a write found of its Note and tab, under the Note's lock.
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
	t         target
	noteFound bool
	tabFound  bool
	keyFound  bool
	firstTool string
	result    string // the key's stored first result
}

// wtx is an open write transaction: its connection, and the changes queued to
// be sent with COMMIT.
type wtx struct {
	ctx   context.Context
	conn  *pgx.Conn
	batch pgx.Batch
}

// queue adds a change, sent with COMMIT.
func (w *wtx) queue(sql string, args ...any) { w.batch.Queue(sql, args...) }

// errReplay ends a write transaction whose key was found: nothing is written.
var errReplay = errors.New("replay")

// runWrite is the write path every tool and save goes through, in one READ
// COMMITTED transaction: the Note's row lock, idempotency lookup, version
// compare (in the order the variant says), apply, version bump, stored result,
// commit. It applies the same rules in the same order as the SQLite store, so
// the same calls give the same results. A transaction that fails with a
// serialization failure or a deadlock runs again; if it keeps failing, the
// write is reported as a conflict with the current version, which an editor
// answers by reading again.
func runWrite[R any](ctx context.Context, c *Session, w writeSpec[R]) (R, error) {
	var res R
	conditional := w.tool != ""
	var expected any
	if conditional {
		if w.key == "" {
			return res, contract.Invalid("idempotency_key", "required")
		}
		var err error
		if expected, err = c.s.versions.Expected(w.expected); err != nil {
			return res, err
		}
	}
	if w.noteID == "" {
		return res, contract.Invalid("note_id", "required")
	}
	err := retry(ctx, func() error {
		var err error
		res, err = tryWrite(ctx, c, w, conditional, expected)
		return err
	})
	if errors.Is(err, errReplay) {
		contract.MarkReplayed(&res)
		return res, nil
	}
	if errors.Is(err, errRetriesExhausted) {
		if cur, cerr := c.currentVersion(ctx, w.noteID, w.tabID); cerr == nil {
			return *new(R), &contract.ConflictError{Current: cur}
		}
	}
	if err != nil {
		return *new(R), err
	}
	return res, nil
}

func tryWrite[R any](ctx context.Context, c *Session, w writeSpec[R], conditional bool, expected any) (res R, err error) {
	s := c.s
	l, err := c.loadWrite(ctx, w.noteID, w.tabID, w.key, w.needData)
	if err != nil {
		return res, err
	}
	tx := &wtx{ctx: ctx, conn: c.conn}
	// From here a transaction is open: every way out but the final batch
	// rolls it back.
	defer func() {
		if err != nil {
			rollback(ctx, c.conn)
		}
	}()
	keyFirst := s.variant.Order == contract.OrderKeyFirst
	if conditional && keyFirst {
		if err := replay(l, w.tool, w.key, &res); err != nil {
			return res, err
		}
	}
	t, err := l.found()
	if err != nil {
		return res, err
	}
	if w.check != nil {
		if err := w.check(tx, t); err != nil {
			return res, err
		}
	}
	tabScoped := s.variant.Guard == contract.GuardTab && w.tabID != ""
	current := t.noteVersion
	if tabScoped {
		current = t.tabVersion
	}
	if conditional && s.variant.Guard != contract.GuardNone && current != expected {
		return res, &contract.ConflictError{Current: toVersion(current)}
	}
	if conditional && !keyFirst {
		if err := replay(l, w.tool, w.key, &res); err != nil {
			return res, err
		}
	}
	next := s.versions.Next(current, t.now)
	if tabScoped {
		tx.queue(sqlBumpTab, next, w.noteID, w.tabID)
	} else {
		tx.queue(sqlBumpNote, next, w.noteID)
	}
	if res, err = w.apply(tx, t, toVersion(next)); err != nil {
		return res, err
	}
	if conditional {
		if err := storable("idempotency_key", w.key); err != nil {
			return res, err
		}
		stored, err := json.Marshal(res)
		if err != nil {
			return res, err
		}
		tx.queue(sqlStoreKey, w.noteID, w.key, w.tool, string(stored))
	}
	if s.beforeCommit != nil {
		if err := s.beforeCommit(ctx, c.conn); err != nil {
			return res, err
		}
	}
	tx.queue("COMMIT")
	return res, sendAll(ctx, c.conn, &tx.batch)
}

// loadWrite begins the transaction, takes the Note's row lock and reads what
// the checks need, in one round trip: BEGIN (READ COMMITTED, whatever the
// server's default), the lock, then the tab (or the
// Note's number of tabs), the key's first use and the server's clock.
func (c *Session) loadWrite(ctx context.Context, noteID, tabID, key string, needData bool) (*loaded, error) {
	l := &loaded{t: target{noteID: noteID, tabID: tabID}}
	b := &pgx.Batch{}
	b.Queue(sqlBegin)
	b.Queue(sqlLockNote, lookup(noteID))
	switch {
	case tabID != "" && needData:
		b.Queue(sqlLoadTabData, lookup(noteID), lookup(tabID), lookup(key))
	case tabID != "":
		b.Queue(sqlLoadTab, lookup(noteID), lookup(tabID), lookup(key))
	default:
		b.Queue(sqlLoadNote, lookup(noteID), lookup(key))
	}
	br := c.conn.SendBatch(ctx, b)
	err := c.readLoad(br, l, tabID != "", needData)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		rollback(ctx, c.conn)
		return nil, err
	}
	l.t.now = c.s.now(l.t.now)
	return l, nil
}

func (c *Session) readLoad(br pgx.BatchResults, l *loaded, tab, needData bool) error {
	if _, err := br.Exec(); err != nil {
		return err
	}
	err := br.QueryRow().Scan(&l.t.noteVersion, &l.t.nextTab, &l.t.nextItem)
	switch {
	case err == nil:
		l.noteFound = true
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	var typ, tool, result *string
	var server time.Time
	if tab {
		dest := []any{&typ, &l.t.tabVersion, &tool, &result, &server}
		var data *string
		if needData {
			dest = append(dest, &data)
		}
		if err := br.QueryRow().Scan(dest...); err != nil {
			return err
		}
		if typ != nil {
			l.tabFound = true
			l.t.tabType = contract.TabType(*typ)
		}
		if data != nil {
			l.t.data = *data
		}
	} else if err := br.QueryRow().Scan(&l.t.tabs, &tool, &result, &server); err != nil {
		return err
	}
	if tool != nil && result != nil {
		l.keyFound, l.firstTool, l.result = true, *tool, *result
	}
	l.t.now = server
	return nil
}

// replay returns nil when the key is new. When it is known it decodes the
// first result into res and returns errReplay, or an invalid_argument error
// when the key was first used by another tool.
func replay(l *loaded, tool, key string, res any) error {
	if !l.keyFound {
		return nil
	}
	if l.firstTool != tool {
		return contract.Invalid("idempotency_key", "already used by %s in this Note", l.firstTool)
	}
	if err := json.Unmarshal([]byte(l.result), res); err != nil {
		return fmt.Errorf("decoding stored result of key %q: %w", key, err)
	}
	return errReplay
}

// found returns the target, or the error that says which of the Note and the
// tab is missing.
func (l *loaded) found() (*target, error) {
	switch {
	case !l.noteFound:
		return nil, &contract.NotFoundError{Field: "note_id", ID: l.t.noteID}
	case l.t.tabID != "" && !l.tabFound:
		return nil, &contract.NotFoundError{Field: "tab_id", ID: l.t.tabID}
	}
	return &l.t, nil
}

// currentVersion reads the version a write to tabID ("" for the Note) is
// checked against.
func (c *Session) currentVersion(ctx context.Context, noteID, tabID string) (contract.Version, error) {
	var v any
	var err error
	if c.s.variant.Guard == contract.GuardTab && tabID != "" {
		err = c.conn.QueryRow(ctx, `SELECT version FROM tabs WHERE note_id = $1 AND tab_id = $2`, lookup(noteID), lookup(tabID)).Scan(&v)
	} else {
		err = c.conn.QueryRow(ctx, `SELECT version FROM notes WHERE id = $1`, lookup(noteID)).Scan(&v)
	}
	return toVersion(v), err
}
