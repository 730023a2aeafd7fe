package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// writeSpec describes one write transaction. A spec without a tool is a person's
// save from the app: no idempotency key and no version compare, but it bumps the
// version like any other write.
type writeSpec[R any] struct {
	tool     string
	noteID   string
	tabID    string // the tab whose content changes; "" for a Note-level write
	expected Version
	key      string
	// check validates the write against its target before any version or key is
	// looked at; it must not write.
	check func(t *target) error
	// apply makes the change, knowing the version it will commit as.
	apply func(t *target, next Version) (R, error)
}

// target is what a write found of its Note and tab before applying.
type target struct {
	noteID      string
	noteVersion any
	nextTab     int64
	nextItem    int64

	tabID      string
	tabType    TabType
	tabVersion any
	label      string
	position   int
}

// errReplay ends a write transaction whose key was found: nothing is written.
var errReplay = errors.New("replay")

// runWrite is the write path every tool and save goes through, in one BEGIN
// IMMEDIATE transaction: idempotency lookup, version compare (in the order the
// options say), apply, version bump, stored result, commit.
func runWrite[R any](ctx context.Context, c *Conn, w writeSpec[R]) (R, error) {
	var res R
	opts := c.s.opts
	conditional := w.tool != ""
	var expected any
	if conditional {
		if w.key == "" {
			return res, invalid("idempotency_key", "required")
		}
		var err error
		if expected, err = c.s.bindVersion(w.expected); err != nil {
			return res, err
		}
	}
	err := c.inTx(ctx, func() error {
		if conditional && opts.Order == OrderKeyFirst {
			if err := c.replay(ctx, w.noteID, w.key, w.tool, &res); err != nil {
				return err
			}
		}
		t, err := c.loadTarget(ctx, w.noteID, w.tabID)
		if err != nil {
			return err
		}
		if w.check != nil {
			if err := w.check(t); err != nil {
				return err
			}
		}
		tabScoped := opts.Guard == GuardTab && w.tabID != ""
		current := t.noteVersion
		if tabScoped {
			current = t.tabVersion
		}
		if conditional && opts.Guard != GuardNone && !sameVersion(current, expected) {
			return &ConflictError{Current: toVersion(current)}
		}
		if conditional && opts.Order == OrderVersionFirst {
			if err := c.replay(ctx, w.noteID, w.key, w.tool, &res); err != nil {
				return err
			}
		}
		next := c.s.nextVersion(current)
		if tabScoped {
			_, err = c.exec(ctx, `UPDATE tabs SET version = ? WHERE note_id = ? AND tab_id = ?`, next, w.noteID, w.tabID)
		} else {
			_, err = c.exec(ctx, `UPDATE notes SET version = ? WHERE id = ?`, next, w.noteID)
		}
		if err != nil {
			return err
		}
		if res, err = w.apply(t, toVersion(next)); err != nil {
			return err
		}
		if !conditional {
			return nil
		}
		stored, err := json.Marshal(res)
		if err != nil {
			return err
		}
		_, err = c.exec(ctx, `INSERT INTO idempotency (note_id, key, tool, result) VALUES (?, ?, ?, ?)`, w.noteID, w.key, w.tool, string(stored))
		return err
	})
	if errors.Is(err, errReplay) {
		markReplayed(&res)
		return res, nil
	}
	if err != nil {
		var zero R
		return zero, err
	}
	return res, nil
}

// replay looks the key up. When it is known it decodes the first result into res
// and returns errReplay; when it is not it returns nil.
func (c *Conn) replay(ctx context.Context, noteID, key, tool string, res any) error {
	var firstTool, stored string
	err := c.queryRow(ctx, `SELECT tool, result FROM idempotency WHERE note_id = ? AND key = ?`, noteID, key).Scan(&firstTool, &stored)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if firstTool != tool {
		return invalid("idempotency_key", "already used by %s in this Note", firstTool)
	}
	if err := json.Unmarshal([]byte(stored), res); err != nil {
		return fmt.Errorf("decoding stored result of key %q: %w", key, err)
	}
	return errReplay
}

func markReplayed(res any) {
	switch r := res.(type) {
	case *EditResult:
		r.Replayed = true
	case *CreateResult:
		r.Replayed = true
	case *SourceResult:
		r.Replayed = true
	}
}

// loadTarget reads the Note row and, when tabID is set, the tab's row.
func (c *Conn) loadTarget(ctx context.Context, noteID, tabID string) (*target, error) {
	t := &target{noteID: noteID, tabID: tabID}
	if noteID == "" {
		return nil, invalid("note_id", "required")
	}
	err := c.queryRow(ctx, `SELECT version, next_tab, next_item FROM notes WHERE id = ?`, noteID).
		Scan(&t.noteVersion, &t.nextTab, &t.nextItem)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &NotFoundError{Field: "note_id", ID: noteID}
	}
	if err != nil || tabID == "" {
		return t, err
	}
	var typ string
	err = c.queryRow(ctx, `SELECT type, version, label, position FROM tabs WHERE note_id = ? AND tab_id = ?`, noteID, tabID).
		Scan(&typ, &t.tabVersion, &t.label, &t.position)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &NotFoundError{Field: "tab_id", ID: tabID}
	}
	t.tabType = TabType(typ)
	return t, err
}

// tabData reads the stored content of a tab.
func (c *Conn) tabData(ctx context.Context, noteID, tabID string) (string, error) {
	var data string
	err := c.queryRow(ctx, `SELECT data FROM tabs WHERE note_id = ? AND tab_id = ?`, noteID, tabID).Scan(&data)
	return data, err
}

func (c *Conn) setTabData(ctx context.Context, noteID, tabID, data string) error {
	_, err := c.exec(ctx, `UPDATE tabs SET data = ? WHERE note_id = ? AND tab_id = ?`, data, noteID, tabID)
	return err
}
