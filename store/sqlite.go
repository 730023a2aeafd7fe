package store

import (
	"fmt"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"

	"github.com/notesbench/notesbench/contract"
)

// busyTimeout is how long a connection waits for a lock before SQLite gives up
// with SQLITE_BUSY. Writes are short, so this is far above any wait the tool's
// own contention creates.
//
// zombiezen.com/go/sqlite opens connections with a busy handler of its own
// that waits until the connection is interrupted, without limit; openConn
// replaces it with SQLite's busy timeout (sqlite3_busy_timeout), the handler
// database/sql's DSN pragma set before: the same growing pauses (1, 2, 5 … 100
// ms), up to this limit.
const busyTimeout = 30 * time.Second

// openConn opens one connection to the store's database and applies the
// store's settings: the busy timeout, synchronous and, for a file, WAL mode.
// The connection runs without SQLite's per-connection mutex
// (SQLITE_OPEN_NOMUTEX): a store connection belongs to one goroutine at a
// time, which Conn enforces. When the store queues its writes, its
// connections leave WAL checkpoints to its checkpointer (see writeQueue).
func (s *Store) openConn() (*sqlite.Conn, error) {
	db, err := sqlite.OpenConn(s.uri, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenURI|sqlite.OpenNoMutex)
	if err != nil {
		return nil, err
	}
	db.SetBusyTimeout(busyTimeout)
	pragmas := []string{"PRAGMA synchronous = " + strings.ToUpper(string(s.opts.Synchronous))}
	if s.wal {
		pragmas = append(pragmas, "PRAGMA journal_mode = WAL")
		if s.opts.QueueWrites {
			pragmas = append(pragmas, "PRAGMA wal_autocheckpoint = 0")
		}
	}
	for _, p := range pragmas {
		if err := execScript(db, p); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// execScript runs the statements of script one after another, outside any
// statement cache: for set-up (pragmas, the schema).
func execScript(db *sqlite.Conn, script string) error {
	for {
		script = strings.TrimSpace(script)
		if script == "" {
			return nil
		}
		st, trailing, err := db.PrepareTransient(script)
		if err != nil {
			return err
		}
		for {
			row, err := st.Step()
			if err != nil {
				st.Finalize()
				return err
			}
			if !row {
				break
			}
		}
		if err := st.Finalize(); err != nil {
			return err
		}
		script = script[len(script)-trailing:]
	}
}

// stmt is a statement prepared once per connection. It remembers the text
// bound to each parameter, so that binding the same text again (the Note ID,
// the tab ID, the tool name: the same on every write of an editor) costs a
// comparison, not a copy into SQLite's memory: the SQLite package copies every
// bound text into a fresh C allocation, and bindings outlive a reset.
type stmt struct {
	s     *sqlite.Stmt
	query string
	texts []boundText // by parameter index - 1
}

// boundText is what a parameter holds: valid says it holds text.
type boundText struct {
	text  string
	valid bool
}

// prepare prepares query on db. The SQLite package keeps one statement per
// query text and connection, so a text must have one stmt only: the store's
// hot and cold statements differ in their texts.
func prepare(db *sqlite.Conn, query string) (*stmt, error) {
	s, err := db.Prepare(query)
	if err != nil {
		return nil, err
	}
	return &stmt{s: s, query: query, texts: make([]boundText, s.BindParamCount())}, nil
}

// text binds v to parameter i (from 1), unless it holds v already.
func (st *stmt) text(i int, v string) {
	if b := &st.texts[i-1]; !b.valid || b.text != v {
		st.s.BindText(i, v)
		*b = boundText{text: v, valid: true}
	}
}

func (st *stmt) int64(i int, v int64) {
	st.s.BindInt64(i, v)
	st.texts[i-1].valid = false
}

// bind binds v, of one of the types the store stores, to parameter i.
func (st *stmt) bind(i int, v any) error {
	switch v := v.(type) {
	case string:
		st.text(i, v)
	case int64:
		st.int64(i, v)
	case int:
		st.int64(i, int64(v))
	case contract.TabType:
		st.text(i, string(v))
	case nil:
		st.s.BindNull(i)
		st.texts[i-1].valid = false
	default:
		return fmt.Errorf("binding parameter %d: unsupported type %T", i, v)
	}
	return nil
}

// bindAll binds args to the parameters in order.
func (st *stmt) bindAll(args []any) error {
	if len(args) != len(st.texts) {
		return fmt.Errorf("store: %d arguments for %d parameters of %q", len(args), len(st.texts), st.query)
	}
	for i, a := range args {
		if err := st.bind(i+1, a); err != nil {
			return err
		}
	}
	return nil
}

// step runs the statement to its next row. On an error the statement is reset,
// and what was bound is forgotten, in case a binding failed.
func (st *stmt) step() (bool, error) {
	row, err := st.s.Step()
	if err != nil {
		clear(st.texts)
	}
	return row, err
}

// exec runs the statement, which returns no rows, and resets it.
func (st *stmt) exec() error {
	_, err := st.step()
	if err != nil {
		return err
	}
	return st.s.Reset()
}

// value reads column col as database/sql read an untyped column: an int64, a
// string, a float64, a []byte or nil.
func (st *stmt) value(col int) any {
	switch st.s.ColumnType(col) {
	case sqlite.TypeInteger:
		return st.s.ColumnInt64(col)
	case sqlite.TypeFloat:
		return st.s.ColumnFloat(col)
	case sqlite.TypeBlob:
		b := make([]byte, st.s.ColumnLen(col))
		st.s.ColumnBytes(col, b)
		return b
	case sqlite.TypeNull:
		return nil
	}
	return st.s.ColumnText(col)
}

// isNull reports whether column col is NULL.
func (st *stmt) isNull(col int) bool { return st.s.ColumnType(col) == sqlite.TypeNull }

// tabType reads a tab type, without allocating for the five known ones.
func (st *stmt) tabType(col int) contract.TabType {
	var buf [16]byte
	if n := st.s.ColumnLen(col); n <= len(buf) {
		switch b := buf[:st.s.ColumnBytes(col, buf[:])]; string(b) {
		case string(contract.TypeMarkdown):
			return contract.TypeMarkdown
		case string(contract.TypeFiles):
			return contract.TypeFiles
		case string(contract.TypeSources):
			return contract.TypeSources
		case string(contract.TypeSlides):
			return contract.TypeSlides
		case string(contract.TypeSheet):
			return contract.TypeSheet
		}
	}
	return contract.TabType(st.s.ColumnText(col))
}

// addArgsColumn adds the idempotency table's args column to a database made
// before the store kept it (argsColumnSQL); a database that has it is left
// as it is.
func addArgsColumn(db *sqlite.Conn) error {
	st, _, err := db.PrepareTransient(`SELECT count(*) FROM pragma_table_info('idempotency') WHERE name = 'args'`)
	if err != nil {
		return err
	}
	if _, err := st.Step(); err != nil {
		st.Finalize()
		return err
	}
	has := st.ColumnInt64(0) > 0
	if err := st.Finalize(); err != nil {
		return err
	}
	if has {
		return nil
	}
	if err := execScript(db, argsColumnSQL); err != nil {
		return fmt.Errorf("adding the arguments of each key to the idempotency table: %w", err)
	}
	return nil
}
