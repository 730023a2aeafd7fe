package store

import (
	"errors"
	"fmt"

	"github.com/notesbench/notesbench/contract"
)

// errNoRows is what row.Scan returns when the query found no row.
var errNoRows = errors.New("store: no rows")

// rows is the result of a query: Next, Scan, Err and Close work as
// database/sql's Rows do, for the destinations the store scans into.
type rows struct {
	st   *stmt
	err  error
	done bool
}

// Next moves to the next row and reports whether there was one. At the end,
// or on an error (see Err), it closes the rows.
func (r *rows) Next() bool {
	if r.done {
		return false
	}
	row, err := r.st.step()
	if err != nil || !row {
		r.err = err
		r.Close()
		return false
	}
	return true
}

// Scan copies the current row into dest, one destination per column: *any,
// *string, *contract.TabType, *int64 or *int. A NULL is an error except into
// *any.
func (r *rows) Scan(dest ...any) error {
	if r.done {
		return errors.New("store: Scan without a row")
	}
	if n := r.st.s.ColumnCount(); len(dest) != n {
		return fmt.Errorf("store: %d destinations for %d columns", len(dest), n)
	}
	for i, d := range dest {
		if p, ok := d.(*any); ok {
			*p = r.st.value(i)
			continue
		}
		if r.st.isNull(i) {
			return fmt.Errorf("scanning column %d: NULL into %T", i, d)
		}
		switch p := d.(type) {
		case *string:
			*p = r.st.s.ColumnText(i)
		case *contract.TabType:
			*p = r.st.tabType(i)
		case *int64:
			*p = r.st.s.ColumnInt64(i)
		case *int:
			*p = int(r.st.s.ColumnInt64(i))
		default:
			return fmt.Errorf("scanning column %d: unsupported destination %T", i, d)
		}
	}
	return nil
}

// Err returns the error that ended Next, if any.
func (r *rows) Err() error { return r.err }

// Close resets the statement; it may be called more than once.
func (r *rows) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	return r.st.s.Reset()
}

// row is the result of a query for one row: Scan reads its first row, or
// returns errNoRows when there is none, and closes the rows.
type row struct {
	rows rows
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
		return errNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	return r.rows.Close()
}
