package store

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"zombiezen.com/go/sqlite"
)

// ApplicationID is what the store writes in the application_id field of
// every database file it creates (PRAGMA application_id): "nbnt". A file
// that holds another ID, or tables of another program, is not the store's,
// and Open refuses it rather than add its tables to it.
const ApplicationID = 0x6e626e74

// storeTables are the tables the schema creates, sorted.
var storeTables = []string{"attachments", "idempotency", "notes", "tabs"}

// ForeignError is a file Open refuses: not a database, or one the store did
// not create. The file is left as it was.
type ForeignError struct {
	Path   string
	Reason string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s is not a notesbench database (%s): it is left as it is", e.Path, e.Reason)
}

// claim makes sure the database file at path is the store's before any
// connection changes it: a missing or empty file is created with the store's
// application ID and schema, in one transaction, before anything switches it
// to WAL mode (a file cut off half-way by a kill is rolled back to empty); a
// file with the store's ID, or an older one of the store's with exactly its
// tables and no ID, is the store's; any other is a *ForeignError.
func claim(path, uri string) error {
	fresh, err := owned(path, uri)
	if err != nil || !fresh {
		return err
	}
	return create(uri)
}

// owned checks, changing nothing, that the file at path may be the store's:
// fresh when it is missing or empty (the store may create it), nil when it
// is a database of the store's, and a *ForeignError for any other file.
func owned(path, uri string) (fresh bool, err error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) || (err == nil && st.Size() == 0):
		return true, nil
	case err != nil:
		return false, err
	case !st.Mode().IsRegular():
		return false, &ForeignError{Path: path, Reason: "not a regular file"}
	}
	return false, ownedDB(path, uri)
}

// ownedDB is owned for a regular file that is not empty.
func ownedDB(path, uri string) error {
	// Read-write, so that a WAL file is read as its writers left it; nothing
	// is written.
	db, err := sqlite.OpenConn(uri, sqlite.OpenReadWrite|sqlite.OpenURI|sqlite.OpenNoMutex)
	if err != nil {
		return &ForeignError{Path: path, Reason: "not an SQLite database: " + err.Error()}
	}
	defer db.Close()
	db.SetBusyTimeout(busyTimeout)
	id, err := queryInt(db, "PRAGMA application_id")
	if err != nil {
		return &ForeignError{Path: path, Reason: "not an SQLite database: " + err.Error()}
	}
	if id == ApplicationID {
		return nil
	}
	if id != 0 {
		return &ForeignError{Path: path, Reason: fmt.Sprintf("application_id %#x", id)}
	}
	names, err := queryNames(db, "SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return &ForeignError{Path: path, Reason: "its schema cannot be read: " + err.Error()}
	}
	if !slices.Equal(names, storeTables) {
		if len(names) == 0 {
			return &ForeignError{Path: path, Reason: "an empty SQLite database of another program"}
		}
		return &ForeignError{Path: path, Reason: "SQLite tables " + strings.Join(names, ", ")}
	}
	return nil // the store's, from before it wrote its ID: the schema transaction adds it
}

// create makes a new database file with the store's ID and schema, in the
// default rollback journal mode, so that it is never seen without its ID.
func create(uri string) error {
	db, err := sqlite.OpenConn(uri, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenURI|sqlite.OpenNoMutex)
	if err != nil {
		return err
	}
	db.SetBusyTimeout(busyTimeout)
	err = execScript(db, "BEGIN IMMEDIATE;"+claimSQL+schemaSQL+"COMMIT;")
	return errors.Join(err, db.Close())
}

// claimSQL writes the store's ID: part of every schema transaction.
var claimSQL = fmt.Sprintf("PRAGMA application_id = %d;", ApplicationID)

func queryInt(db *sqlite.Conn, query string) (int64, error) {
	st, _, err := db.PrepareTransient(query)
	if err != nil {
		return 0, err
	}
	defer st.Finalize()
	row, err := st.Step()
	if err != nil || !row {
		return 0, err
	}
	return st.ColumnInt64(0), nil
}

func queryNames(db *sqlite.Conn, query string) ([]string, error) {
	st, _, err := db.PrepareTransient(query)
	if err != nil {
		return nil, err
	}
	defer st.Finalize()
	var out []string
	for {
		row, err := st.Step()
		if err != nil {
			return nil, err
		}
		if !row {
			return out, nil
		}
		out = append(out, st.ColumnText(0))
	}
}
