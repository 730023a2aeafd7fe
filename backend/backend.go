// Package backend is where notesbench picks what serves the contract: the one
// package that knows every implementation of the contract seam. cmd names a
// backend with a Spec and gets a contract.Target; nothing else imports the
// implementations.
package backend

import (
	"os"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/store"
)

// Spec selects the implementation a run goes to and its settings.
type Spec struct {
	// DBDir keeps every run's SQLite database in this folder; empty means a
	// temporary folder, removed when the Target is closed.
	DBDir string
	// InMemory keeps the SQLite databases in memory.
	InMemory bool
	// Synchronous is SQLite's synchronous setting: normal or full ("" is normal).
	Synchronous string
}

// Check validates the spec without opening anything; its errors are
// *field.Error naming the Spec field ("db", "synchronous").
func (s Spec) Check() error {
	if s.Synchronous != "" {
		if _, err := store.ParseSynchronous(s.Synchronous); err != nil {
			return field.Wrap("synchronous", err)
		}
	}
	if s.InMemory && s.DBDir != "" {
		return field.Errorf("db", "a folder for the databases and in-memory databases exclude each other")
	}
	if s.DBDir != "" {
		if st, err := os.Stat(s.DBDir); err == nil && !st.IsDir() {
			return field.Errorf("db", "%s is not a folder", s.DBDir)
		}
	}
	return nil
}

// Open returns the Target the spec names. Close it when the runs are done.
func Open(s Spec) (contract.Target, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	sync := store.SyncNormal
	if s.Synchronous != "" {
		sync = store.Synchronous(s.Synchronous)
	}
	return &store.Target{Dir: s.DBDir, InMemory: s.InMemory, Synchronous: sync}, nil
}

// Memory is the in-memory embedded target: what verdict replications and the
// experiments that never touch a file run on.
func Memory() contract.Target { return &store.Target{InMemory: true} }

// EngineVersion is the version of the embedded SQLite engine.
func EngineVersion() string { return store.EngineVersion() }

// EngineDriver names the embedded SQLite implementation.
const EngineDriver = store.Driver
