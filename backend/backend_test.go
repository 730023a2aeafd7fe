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

// Starts and StateDir say, from the spec alone, whether notesbench starts
// the server and gives it a fresh state folder.
func TestSpecStartsAndStateDir(t *testing.T) {
	for _, tc := range []struct {
		spec   Spec
		starts bool
		dir    string
	}{
		{Spec{}, false, ""},
		{Spec{Target: "embedded"}, false, ""},
		{Spec{Target: "stdio:notesbench serve"}, true, ""},
		{Spec{Target: "stdio:notesbench serve --db {dir}/n.db"}, true, "{dir}"},
		{Spec{Target: "http://127.0.0.1:8080/mcp"}, false, ""},
		{Spec{Target: "http://127.0.0.1:{port}/mcp", Spawn: "notesbench serve --http 127.0.0.1:{port} --db {dir}/n.db"}, true, "{dir}"},
	} {
		if got := tc.spec.Starts(); got != tc.starts {
			t.Errorf("%+v: Starts() = %v, want %v", tc.spec, got, tc.starts)
		}
		if got := tc.spec.StateDir(); got != tc.dir {
			t.Errorf("%+v: StateDir() = %q, want %q", tc.spec, got, tc.dir)
		}
	}
}
