package store

import (
	"context"
	"encoding/json"
	"errors"

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
	// check validates the write against its target once the Note and the tab
	// are found, in the order of the contract's checks
	// (contract.Variant.CheckWrite); it must not write.
	check func(t *target) error
	// apply makes the change, knowing the version it will commit as.
	apply func(t *target, next contract.Version) (R, error)
}

// target is what a write found of its Note and tab before applying.
type target struct {
	noteID      string
	noteVersion any
	// nextTab and nextItem are the Note's counters; a write reads them only
	// when it names no tab (the Note-level writes that use them).
	nextTab  int64
	nextItem int64

	tabID      string
	tabType    contract.TabType
	tabVersion any
}

// errReplay ends a write transaction whose key was found: nothing is written.
var errReplay = errors.New("replay")

// runWrite is the write path every tool and save goes through, in one BEGIN
// IMMEDIATE transaction: the contract's checks (idempotency lookup and version
// compare, in the order the options say; contract.Variant.CheckWrite), apply,
// version bump, stored result, commit.
//
// One statement (loadWrite) reads the Note, the tab and the key's first use
// together; the checks then take them in their order, so a write sees the
// same outcome as with one lookup per clause, in fewer round trips to SQLite.
func runWrite[R any](ctx context.Context, c *Conn, w writeSpec[R]) (R, error) {
	var res R
	v := c.s.opts.variant()
	cw := contract.Write{Tool: w.tool, NoteID: w.noteID, TabID: w.tabID}
	if w.tool != "" {
		var err error
		if cw.Expected, err = c.s.versions.Expected(w.expected); err != nil {
			return res, err
		}
		if v.RefusesKeyReuse() {
			cw.Args = contract.ArgsDigest(w.request)
		}
	}
	tabScoped := v.TabScoped(w.tabID)
	err := c.inTx(ctx, func() error {
		l, err := c.loadWrite(ctx, w.noteID, w.tabID, w.key)
		if err != nil {
			return err
		}
		t := &l.t
		l.found.Current = v.GuardedVersion(w.tabID, t.noteVersion, t.tabVersion)
		var check func() error
		if w.check != nil {
			check = func() error { return w.check(t) }
		}
		replay, err := v.CheckWrite(cw, l.found, check)
		if err != nil {
			return err
		}
		if replay {
			return c.replay(ctx, w.noteID, w.key, &res)
		}
		next := c.s.nextVersion(l.found.Current)
		if err := c.bumpVersion(ctx, next, w.noteID, w.tabID, tabScoped); err != nil {
			return err
		}
		if res, err = w.apply(t, toVersion(next)); err != nil {
			return err
		}
		if w.tool == "" {
			return nil
		}
		stored, err := marshalResult(res)
		if err != nil {
			return err
		}
		return c.storeKey(ctx, w.noteID, w.key, w.tool, stored, cw.Args)
	})
	if errors.Is(err, errReplay) {
		return res, nil
	}
	if err != nil {
		var zero R
		return zero, err
	}
	return res, nil
}

// marshalResult is the stored form of a write's result: its JSON, as
// json.Marshal writes it. An edit's result, the one every editor's write
// stores, is written by hand when its strings need no escaping (see
// appendEditResult): reflection cost more than a statement.
func marshalResult(res any) (string, error) {
	if r, ok := res.(contract.EditResult); ok {
		if b, ok := appendEditResult(make([]byte, 0, 128), r); ok {
			return string(b), nil
		}
	}
	b, err := json.Marshal(res)
	return string(b), err
}

// appendEditResult appends r as json.Marshal writes it and reports true, or
// reports false when a string of r is not plain (see plainJSON): json.Marshal
// then writes it.
func appendEditResult(b []byte, r contract.EditResult) ([]byte, bool) {
	v, err := r.Version.MarshalJSON()
	if err != nil || !plainJSON(r.NoteID) || !plainJSON(r.TabID) || !plainJSON(r.Changed) {
		return nil, false
	}
	switch {
	case v[0] == '"' && !plainJSON(string(v[1:len(v)-1])):
		return nil, false
	case v[0] == '0' && len(v) > 1: // not a JSON number: json.Marshal refuses it
		return nil, false
	}
	b = append(b, `{"note_id":"`...)
	b = append(b, r.NoteID...)
	b = append(b, `","tab_id":"`...)
	b = append(b, r.TabID...)
	b = append(b, `","version":`...)
	b = append(b, v...)
	b = append(b, `,"changed":"`...)
	b = append(b, r.Changed...)
	b = append(b, '"')
	if r.Replayed {
		b = append(b, `,"replayed":true`...)
	}
	return append(b, '}'), true
}

// plainJSON reports whether json.Marshal writes s as it is between quotes:
// printable ASCII without the quote, the backslash and the characters it escapes for HTML
// ('<', '>', '&').
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// loaded is what loadWrite read: the target as far as it exists, and what the
// contract's checks need to know of it.
type loaded struct {
	t     target
	found contract.Found
}

// loadWrite reads, in one statement, the Note row, the row of tab tabID (when
// set; the Note's tab and item counters when not) and the tool that first used
// key in that Note (when set). The stored result of a known key is read only
// when it is replayed (see replay).
func (c *Conn) loadWrite(ctx context.Context, noteID, tabID, key string) (l *loaded, err error) {
	l = &loaded{t: target{noteID: noteID, tabID: tabID}}
	if noteID == "" {
		return l, nil
	}
	var st *stmt
	if tabID != "" {
		if st, err = c.hotStmt(ctx, hotLoadTab); err != nil {
			return nil, err
		}
		st.text(1, tabID)
		st.text(2, key)
		st.text(3, noteID)
	} else {
		if st, err = c.hotStmt(ctx, hotLoadNote); err != nil {
			return nil, err
		}
		st.text(1, key)
		st.text(2, noteID)
	}
	found, err := st.step()
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, st.s.Reset()) }()
	if !found {
		return l, nil
	}
	l.found.NoteFound = true
	l.t.noteVersion = st.value(0)
	if tabID != "" {
		if !st.isNull(1) {
			l.found.TabFound = true
			l.t.tabType = st.tabType(1)
			l.t.tabVersion = st.value(2)
		}
	} else {
		l.t.nextTab, l.t.nextItem = st.s.ColumnInt64(1), st.s.ColumnInt64(2)
	}
	if key != "" && !st.isNull(3) {
		l.found.KeyFound, l.found.FirstTool, l.found.FirstArgs = true, st.s.ColumnText(3), st.s.ColumnText(4)
	}
	return l, nil
}

// bumpVersion sets the version a write commits: the tab's, when the write is
// tab-scoped, else the Note's.
func (c *Conn) bumpVersion(ctx context.Context, next any, noteID, tabID string, tabScoped bool) error {
	id := hotBumpNote
	if tabScoped {
		id = hotBumpTab
	}
	st, err := c.hotStmt(ctx, id)
	if err != nil {
		return err
	}
	if err := st.bind(1, next); err != nil {
		return err
	}
	st.text(2, noteID)
	if tabScoped {
		st.text(3, tabID)
	}
	return st.exec()
}

// storeKey stores the result of a write under its key.
func (c *Conn) storeKey(ctx context.Context, noteID, key, tool, result, args string) error {
	which := hotStoreKey
	if args != "" {
		which = hotStoreKeyArgs
	}
	st, err := c.hotStmt(ctx, which)
	if err != nil {
		return err
	}
	st.text(1, noteID)
	st.text(2, key)
	st.text(3, tool)
	st.text(4, result)
	if args != "" {
		st.text(5, args)
	}
	return st.exec()
}

// replay reads the result first stored under key into res and returns
// errReplay.
func (c *Conn) replay(ctx context.Context, noteID, key string, res any) error {
	st, err := c.hotStmt(ctx, hotReplay)
	if err != nil {
		return err
	}
	st.text(1, noteID)
	st.text(2, key)
	var stored string
	if err := (&row{rows: rows{st: st}}).Scan(&stored); err != nil {
		return err
	}
	if err := contract.DecodeReplay(key, stored, res); err != nil {
		return err
	}
	return errReplay
}

// loadTarget reads the Note row and, when tabID is set, the tab's row.
func (c *Conn) loadTarget(ctx context.Context, noteID, tabID string) (*target, error) {
	t := &target{noteID: noteID, tabID: tabID}
	if noteID == "" {
		return nil, contract.Invalid("note_id", "required")
	}
	err := c.queryRow(ctx, `SELECT version, next_tab, next_item FROM notes WHERE id = ?`, noteID).
		Scan(&t.noteVersion, &t.nextTab, &t.nextItem)
	if errors.Is(err, errNoRows) {
		return nil, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	if err != nil || tabID == "" {
		return t, err
	}
	err = c.queryRow(ctx, `SELECT type, version FROM tabs WHERE note_id = ? AND tab_id = ?`, noteID, tabID).
		Scan(&t.tabType, &t.tabVersion)
	if errors.Is(err, errNoRows) {
		return nil, &contract.NotFoundError{Field: "tab_id", ID: tabID}
	}
	return t, err
}

// tabData reads the stored content of a tab.
func (c *Conn) tabData(ctx context.Context, noteID, tabID string) (string, error) {
	var data string
	err := c.queryRow(ctx, `SELECT data FROM tabs WHERE note_id = ? AND tab_id = ?`, noteID, tabID).Scan(&data)
	return data, err
}

func (c *Conn) setTabData(ctx context.Context, noteID, tabID, data string) error {
	st, err := c.hotStmt(ctx, hotSetData)
	if err != nil {
		return err
	}
	st.text(1, data)
	st.text(2, noteID)
	st.text(3, tabID)
	return st.exec()
}
