package backend

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
)

// A served database file outlives its Backend: a Note created before a
// restart is there after it.
func TestOpenBackendKeepsTheFile(t *testing.T) {
	ctx := context.Background()
	spec := Spec{File: filepath.Join(t.TempDir(), "served.db")}
	b, err := OpenBackend(spec, contract.Variant{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b, err = OpenBackend(spec, contract.Variant{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.CreateNote(ctx, "note-1"); err == nil {
		t.Fatal("the Note created before the restart is gone")
	}
}

func TestOpenBackendBadSpec(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{File: dir}, "db: " + dir + " is a folder, not a database file"},
		{Spec{File: filepath.Join(dir, "x.db"), InMemory: true}, "db: an in-memory database is not kept in a file"},
		{Spec{File: filepath.Join(dir, "x.db"), DBDir: dir}, "db: names both a folder and a file"},
		{Spec{}, "db: no database file named"},
		{Spec{InMemory: true, Synchronous: "off"}, `synchronous: unknown synchronous setting "off" (want normal or full)`},
	} {
		_, err := OpenBackend(tc.spec, contract.Variant{}, 0)
		var fe *field.Error
		if !errors.As(err, &fe) || err.Error() != tc.want {
			t.Errorf("%+v: got %v, want %s", tc.spec, err, tc.want)
		}
	}
}
