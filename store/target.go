package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

var (
	_ contract.Session = (*Conn)(nil)
	_ contract.Person  = (*Conn)(nil)
	_ contract.Backend = (*Store)(nil)
	_ contract.Target  = (*Target)(nil)
)

// Session opens a connection of its own for one client: Conn as a
// contract.Session.
func (s *Store) Session(ctx context.Context) (contract.Session, error) {
	return s.Conn(ctx)
}

// Target opens a fresh SQLite database for every run: a WAL file named after the
// run in Dir (a temporary folder, removed by Close, when Dir is empty), or a
// private in-memory database when InMemory is set.
type Target struct {
	// Dir keeps every run's database file; empty means a temporary folder,
	// made in TempParent (the system's temporary folder when empty) and
	// removed when the Target is closed.
	Dir         string
	TempParent  string
	InMemory    bool
	Synchronous contract.Synchronous
	// QueueWrites opens every run's store with Options.QueueWrites: for a
	// server, whose sessions all write through one store. A run whose RunSpec
	// says OneServer gets it too.
	QueueWrites bool

	once    sync.Once
	dir     string // the folder the files go in, made on first use
	tempDir bool
	dirErr  error
}

// Describe names the engine and where the databases go.
func (t *Target) Describe() string {
	where := "WAL files"
	if t.InMemory {
		where = "in memory"
	}
	return fmt.Sprintf("SQLite %s (%s), %s", EngineVersion(), Driver, where)
}

// Open opens the database of one run, replacing a file an earlier run with the
// same name left behind. A file of that name the store did not create is
// refused with a *ForeignError and left as it is.
func (t *Target) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	opts := Options{Guard: run.Variant.Guard, VersionFormat: run.Variant.VersionFormat, Order: run.Variant.Order, KeyReuse: run.Variant.KeyReuse,
		Synchronous: t.Synchronous, Clock: run.Clock, Seed: run.Seed, QueueWrites: t.QueueWrites || run.OneServer}
	if t.InMemory {
		return Open(InMemory, opts)
	}
	dir, err := t.folder()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, run.Name+".db")
	if _, err := owned(path, uri(path)); err != nil {
		return nil, fmt.Errorf("opening store %q: %w", path, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return Open(path, opts)
}

func (t *Target) folder() (string, error) {
	t.once.Do(func() {
		if t.Dir != "" {
			t.dir, t.dirErr = t.Dir, os.MkdirAll(t.Dir, 0o755)
			return
		}
		t.dir, t.dirErr = os.MkdirTemp(t.TempParent, "notesbench-")
		t.tempDir = t.dirErr == nil
	})
	return t.dir, t.dirErr
}

// Close removes the temporary folder, if one was made.
func (t *Target) Close() error {
	if t.tempDir {
		return os.RemoveAll(t.dir)
	}
	return nil
}
