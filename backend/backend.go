// Package backend is where notesbench picks what serves the contract: the one
// package that knows every implementation of the contract seam. cmd names a
// backend with a Spec and gets a contract.Target; nothing else imports the
// implementations.
package backend

import (
	"context"
	"os"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/store"
)

// Spec selects the implementation a run goes to and its settings.
type Spec struct {
	// DBDir keeps every run's SQLite database in this folder; empty means a
	// temporary folder, removed when the Target is closed.
	DBDir string
	// File is the one SQLite database of OpenBackend, created when missing and
	// kept: what notesbench serve serves. It is not used by Open.
	File string
	// InMemory keeps the SQLite databases in memory.
	InMemory bool
	// Synchronous is SQLite's synchronous setting: normal or full ("" is normal).
	Synchronous string
	// Target names an MCP server to run against instead of the embedded store:
	// "stdio:COMMAND [ARGS]" or "http://HOST:PORT/PATH"; "" or "embedded" is
	// the embedded store.
	Target string
	// Note, with Target, is an existing, fresh Note for a server that cannot
	// create Notes; it serves one run.
	Note string
	// ClientVersion is the version notesbench gives in an MCP handshake.
	ClientVersion string
}

// Remote reports whether the spec names a server rather than the embedded store.
func (s Spec) Remote() bool { return s.Target != "" && s.Target != "embedded" }

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
	if s.Remote() {
		if _, err := mcpclient.Parse(s.Target); err != nil {
			return field.Wrap("target", err)
		}
		switch {
		case s.DBDir != "" || s.File != "":
			return field.Errorf("db", "a server keeps its own databases: --db does not apply to --target %s", s.Target)
		case s.InMemory:
			return field.Errorf("memory", "a server keeps its own databases: --memory does not apply to --target %s", s.Target)
		}
	}
	if s.File != "" {
		switch {
		case s.InMemory:
			return field.Errorf("db", "cannot keep a database with --memory")
		case s.DBDir != "":
			return field.Errorf("db", "names both a folder and a file")
		}
		if st, err := os.Stat(s.File); err == nil && st.IsDir() {
			return field.Errorf("db", "%s is a folder, not a database file", s.File)
		}
	}
	return nil
}

// Open returns the Target the spec names. Close it when the runs are done. A
// server is connected to at once, and its tools checked: an unreachable
// server, one that does not speak MCP or lacks a tool is an error naming it
// (not a field error: the spec was well formed).
func Open(ctx context.Context, s Spec) (contract.Target, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if s.Remote() {
		spec, _ := mcpclient.Parse(s.Target)
		return mcpclient.Dial(ctx, spec, mcpclient.Options{Note: s.Note, Version: s.ClientVersion})
	}
	sync := store.SyncNormal
	if s.Synchronous != "" {
		sync = store.Synchronous(s.Synchronous)
	}
	return &store.Target{Dir: s.DBDir, InMemory: s.InMemory, Synchronous: sync}, nil
}

// OpenBackend opens one Backend serving variant v, for as long as it is open:
// the SQLite database in s.File (created when missing, kept when closed, and
// shared with any other process that opens it), or a private in-memory
// database with s.InMemory. Seed seeds the random suffix of us-suffix
// versions. Closing the Backend checkpoints the database.
func OpenBackend(s Spec, v contract.Variant, seed uint64) (contract.Backend, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	path := s.File
	switch {
	case s.InMemory:
		path = store.InMemory
	case path == "":
		return nil, field.Errorf("db", "no database file named")
	}
	st, err := store.Open(path, store.Options{Guard: v.Guard, VersionFormat: v.VersionFormat, Order: v.Order,
		Synchronous: store.Synchronous(s.Synchronous), Seed: seed})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Memory is the in-memory embedded target: what verdict replications and the
// experiments that never touch a file run on.
func Memory() contract.Target { return &store.Target{InMemory: true} }

// EngineVersion is the version of the embedded SQLite engine.
func EngineVersion() string { return store.EngineVersion() }

// EngineDriver names the embedded SQLite implementation.
const EngineDriver = store.Driver
