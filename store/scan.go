package store

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/notesbench/notesbench/contract"
)

// rows is a result set read from the driver: Next, Scan, Err and Close work as
// database/sql's Rows do for the destinations the store scans into.
type rows struct {
	r    driver.Rows
	vals []driver.Value
	err  error
	done bool
}

// Next reads the next row, and reports whether there was one. At the end, or
// on an error (see Err), it closes the rows.
func (r *rows) Next() bool {
	if r.done {
		return false
	}
	if err := r.r.Next(r.vals); err != nil {
		if err != io.EOF {
			r.err = err
		}
		r.Close()
		return false
	}
	return true
}

// Scan copies the current row into dest, one destination per column.
func (r *rows) Scan(dest ...any) error {
	if r.done {
		return errors.New("store: Scan without a row")
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("store: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		if err := assign(d, r.vals[i]); err != nil {
			return fmt.Errorf("scanning column %d: %w", i, err)
		}
	}
	return nil
}

// Err returns the error that ended Next, if any.
func (r *rows) Err() error { return r.err }

// Close releases the rows; it may be called more than once.
func (r *rows) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	return r.r.Close()
}

// row is the result of a query for one row: Scan reads its first row, or
// returns sql.ErrNoRows when there is none, and closes the rows.
type row struct {
	rows *rows
	err  error
}

// Scan copies the first row into dest.
func (r *row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	return r.rows.Close()
}

// assign stores a column value in dest as database/sql's Scan does, for the
// destinations the store uses: *any, *string and string kinds, *int64, *int and
// sql.Scanner (sql.NullString and the like).
func assign(dest any, src driver.Value) error {
	switch d := dest.(type) {
	case *any:
		if b, ok := src.([]byte); ok {
			src = bytes.Clone(b)
		}
		*d = src
		return nil
	case *string:
		s, err := asString(src)
		*d = s
		return err
	case *contract.TabType:
		s, err := asString(src)
		*d = contract.TabType(s)
		return err
	case *int64:
		n, err := asInt(src)
		*d = n
		return err
	case *int:
		n, err := asInt(src)
		*d = int(n)
		return err
	case sql.Scanner:
		return d.Scan(src)
	}
	return fmt.Errorf("unsupported destination %T", dest)
}

func asString(src driver.Value) (string, error) {
	switch s := src.(type) {
	case string:
		return s, nil
	case []byte:
		return string(s), nil
	case int64:
		return strconv.FormatInt(s, 10), nil
	case float64:
		return strconv.FormatFloat(s, 'g', -1, 64), nil
	case nil:
		return "", errors.New("converting NULL to string is unsupported")
	}
	return "", fmt.Errorf("converting %T to string is unsupported", src)
}

func asInt(src driver.Value) (int64, error) {
	switch n := src.(type) {
	case int64:
		return n, nil
	case string:
		return strconv.ParseInt(n, 10, 64)
	case []byte:
		return strconv.ParseInt(string(n), 10, 64)
	case nil:
		return 0, errors.New("converting NULL to int is unsupported")
	}
	return 0, fmt.Errorf("converting %T to int is unsupported", src)
}

// inTx runs fn inside BEGIN IMMEDIATE … COMMIT, rolling back when fn or the
// commit hook fails. A write transaction takes the write lock up front, so it
// never fails with SQLITE_BUSY half-way: it waits for the lock at BEGIN.
