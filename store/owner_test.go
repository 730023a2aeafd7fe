package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"zombiezen.com/go/sqlite"

	"github.com/notesbench/notesbench/contract"
)

// A file the store did not create is refused, byte for byte untouched: another
// program's database, an empty database of another program, a text file. Its
// own files, including one from before the store wrote its ID, open.
func TestOpenRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	foreign := func(name, script string) string {
		path := filepath.Join(dir, name)
		db, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate)
		if err != nil {
			t.Fatal(err)
		}
		if err := execScript(db, script); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("my notes, not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, reason string
	}{
		{foreign("app.db", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada');"), "SQLite tables users"},
		{foreign("other-id.db", "PRAGMA application_id = 42; CREATE TABLE notes (id TEXT);"), "application_id 0x2a"},
		{foreign("empty.db", "PRAGMA user_version = 3;"), "an empty SQLite database of another program"},
		{foreign("lookalike.db", strings.ReplaceAll(schemaSQL, "idempotency", "keys")), "SQLite tables attachments, keys, notes, tabs"},
		{text, "not an SQLite database"},
	} {
		before, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Open(tc.path, Options{})
		var fe *ForeignError
		if !errors.As(err, &fe) || !strings.Contains(fe.Reason, tc.reason) {
			if st != nil {
				st.Close()
			}
			t.Errorf("%s: %v; want a foreign file: %s", filepath.Base(tc.path), err, tc.reason)
			continue
		}
		after, _ := os.ReadFile(tc.path)
		if !bytes.Equal(before, after) {
			t.Errorf("%s was changed", filepath.Base(tc.path))
		}
		if _, err := os.Stat(tc.path + "-wal"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s got a WAL file", filepath.Base(tc.path))
		}
	}

	// The store's own, new, again, and from before the ID.
	ours := filepath.Join(dir, "ours.db")
	for range 2 {
		st, err := Open(ours, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	old := foreign("old.db", schemaSQL)
	st, err := Open(old, Options{})
	if err != nil {
		t.Fatalf("a store file from before the ID: %v", err)
	}
	st.Close()
	for _, path := range []string{ours, old} {
		db, err := sqlite.OpenConn(path, sqlite.OpenReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		id, err := queryInt(db, "PRAGMA application_id")
		db.Close()
		if err != nil || id != ApplicationID {
			t.Errorf("%s: application_id %#x, %v", filepath.Base(path), id, err)
		}
	}
}

// A run's database replaces the file an earlier run of the same name left in
// Target.Dir, and only such a file: one of the user's that happens to bear
// the name is refused, byte for byte untouched (a text file
// race-none-seed1.db became an SQLite database).
func TestTargetRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	tg := &Target{Dir: dir}
	run := contract.RunSpec{Name: "race-none-seed1"}
	path := filepath.Join(dir, run.Name+".db")
	mine := []byte("my notes, not a database\n")
	if err := os.WriteFile(path, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := tg.Open(ctx, run)
	var fe *ForeignError
	if !errors.As(err, &fe) || fe.Path != path {
		if b != nil {
			b.Close()
		}
		t.Fatalf("%v; want a foreign file %s", err, path)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, mine) {
		t.Fatalf("the user's file was changed: %.60q", after)
	}
	// An empty file, then the earlier run's own database, are replaced.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		b, err := tg.Open(ctx, run)
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A database made before the store kept each key's arguments is opened as
// the store's: the column is added, a key it holds is replayed whatever a
// resend's arguments (nothing was kept to compare), and a new key under
// KeyRefuse is refused when sent again with other arguments.
func TestADatabaseWithoutKeyArgumentsGetsThem(t *testing.T) {
	old := strings.Replace(schemaSQL, "\targs    TEXT NOT NULL DEFAULT '',\n", "", 1)
	if old == schemaSQL {
		t.Fatal("the schema no longer has the args line this test takes out")
	}
	path := filepath.Join(t.TempDir(), "before-args.db")
	db, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate)
	if err != nil {
		t.Fatal(err)
	}
	if err := execScript(db, claimSQL+old); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	edit := func(s *Store, version contract.Version, key, text string) (contract.EditResult, error) {
		c, err := s.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", ExpectedVersion: version, IdempotencyKey: key, Operation: contract.OpReplaceText, Text: text})
	}
	if err := st.CreateNote(ctx, "n"); err != nil {
		t.Fatal(err)
	}
	if _, err := edit(st, "1", "kept-before", "a"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, err = Open(path, Options{KeyReuse: contract.KeyRefuse})
	if err != nil {
		t.Fatalf("reopening with the column added: %v", err)
	}
	defer st.Close()
	if res, err := edit(st, "2", "kept-before", "b"); err != nil || !res.Replayed {
		t.Errorf("a key kept without its arguments, sent with others: %+v, %v; want the first result", res, err)
	}
	if _, err := edit(st, "2", "new", "c"); err != nil {
		t.Fatal(err)
	}
	var bad *contract.InvalidArgumentError
	if res, err := edit(st, "3", "new", "d"); !errors.As(err, &bad) || bad.Field != "idempotency_key" {
		t.Errorf("a new key sent with other arguments: %+v, %v; want idempotency_key refused", res, err)
	}
}
