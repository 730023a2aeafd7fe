// Package backend is where notesbench picks what serves the contract: the one
// package that knows every implementation of the contract seam. cmd names a
// backend with a Spec and gets a contract.Target; nothing else imports the
// implementations.
package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/pgbench"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/pgstore"
	"github.com/notesbench/notesbench/store"
)

// Spec selects the implementation a run goes to and its settings.
type Spec struct {
	// Store is what serves the contract: "" or "sqlite" for the embedded SQLite
	// store, a postgres:// or postgresql:// URL for a PostgreSQL server (each
	// run in a schema of its own).
	Store string
	// Keep leaves each run's PostgreSQL schema in place for inspection;
	// with Target, each run's documents, which the profile's teardown
	// would remove.
	Keep bool
	// DBDir keeps every run's SQLite database in this folder; empty means a
	// temporary folder, made in TempDir (the system's temporary folder when
	// empty) and removed when the Target is closed.
	DBDir   string
	TempDir string
	// File is the one SQLite database of OpenBackend, created when missing and
	// kept: what notesbench serve serves. It is not used by Open.
	File string
	// InMemory keeps the SQLite databases in memory.
	InMemory bool
	// Synchronous is SQLite's synchronous setting: normal or full ("" is
	// normal); on PostgreSQL, synchronous_commit off or on.
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
	// LenientSchemas, with Target, connects to a server whose tool schemas
	// differ from the contract's (see mcpclient.Options.LenientSchemas).
	LenientSchemas bool
	// Profile, with Target, maps the contract onto the server's own tools: a
	// built-in profile's name or a profile file (package profile); "" means
	// the contract's own tools.
	Profile string
	// Protocol, with Target, pins the MCP protocol version; "" negotiates
	// the newest the server speaks.
	Protocol string
	// Sessions, with Target, is the session mode; "" is one per editor.
	Sessions contract.SessionMode
	// Balance, with a Target of several URLs (replicas), chooses each call's
	// replica; "" is random.
	Balance contract.Balance
	// Token, with an HTTP Target, is the bearer token its requests carry.
	Token string
	// Schema, with a PostgreSQL Store, names the schema OpenBackend serves:
	// created when missing, kept when closed, and shared with every process
	// that names it. "" is a schema of the process's own, dropped when
	// closed (unless Keep).
	Schema string
	// Spawn, with an HTTP Target whose port is mcpclient.PortPlaceholder,
	// is the command that starts the server, split as a stdio target's
	// (mcpclient.Options.Spawn); CallTimeout bounds each call to a server
	// (mcpclient.Options.CallTimeout), StartTimeout each start of one, to
	// the end of its MCP handshake (mcpclient.Options.ConnectTimeout).
	Spawn                     string
	CallTimeout, StartTimeout time.Duration
	// Faults, with Target, are the faults made between notesbench and the
	// server (mcpclient.Options.Faults); nil makes none.
	Faults *nemesis.Faults
}

// Remote reports whether the spec names a server rather than the embedded store.
func (s Spec) Remote() bool { return s.Target != "" && s.Target != "embedded" }

// Starts reports whether notesbench starts the server the spec names: a
// stdio target, or an HTTP one Spawn starts.
func (s Spec) Starts() bool {
	spec, err := mcpclient.Parse(s.Target)
	return s.Remote() && (err == nil && spec.Stdio() || s.Spawn != "")
}

// StateDir is the placeholder of a fresh folder for the server's state
// (mcpclient.DirPlaceholder) when the target or its Spawn command holds
// one, and "" otherwise.
func (s Spec) StateDir() string {
	if s.Remote() && (strings.Contains(s.Target, mcpclient.DirPlaceholder) || strings.Contains(s.Spawn, mcpclient.DirPlaceholder)) {
		return mcpclient.DirPlaceholder
	}
	return ""
}

// DefaultConnectTimeout is how long a start of a server may take when
// nothing says otherwise (mcpclient.DefaultConnectTimeout).
const DefaultConnectTimeout = mcpclient.DefaultConnectTimeout

// StoreName names the store for a report: "" for the embedded SQLite store,
// the PostgreSQL URL without its password otherwise.
func (s Spec) StoreName() string {
	if s.Postgres() {
		return pgstore.Redact(s.Store)
	}
	return ""
}

// Schema names the PostgreSQL schema of a Backend OpenBackend opened, and ""
// for any other.
func Schema(b contract.Backend) string {
	if st, ok := b.(*pgstore.Store); ok {
		return st.Schema()
	}
	return ""
}

// Describe says where b, which OpenBackend opened from s, keeps its data:
// where in full, for the person who started it, and describe for its
// clients, which names the database file but never its folder; redact is
// that folder, to keep out of what clients see.
func (s Spec) Describe(b contract.Backend) (where, describe string, redact []string) {
	if schema := Schema(b); schema != "" {
		where = "PostgreSQL " + s.StoreName() + ", schema " + schema
		return where, where, nil
	}
	engine := fmt.Sprintf("SQLite %s (%s)", EngineVersion(), EngineDriver)
	if s.InMemory || s.File == "" {
		return "in memory", engine + ", in memory", nil
	}
	return s.File, engine + ", file " + filepath.Base(s.File), []string{filepath.Dir(s.File) + string(filepath.Separator)}
}

// Peer returns, for a PostgreSQL Target, pgbench running the same write
// transaction at one client (see internal/pgbench), for bench to time
// beside its own runs; nil for any other Target.
func Peer(t contract.Target) func(ctx context.Context, guard contract.Guard, writes, warmup, textSize int) ([]float64, error) {
	pg, ok := t.(*pgstore.Target)
	if !ok {
		return nil
	}
	return func(ctx context.Context, guard contract.Guard, writes, warmup, textSize int) ([]float64, error) {
		return pgbench.Peer{Writes: writes, Warmup: warmup, TextSize: textSize, Guard: guard}.Run(ctx, pg)
	}
}

// Kept lists the PostgreSQL schemas a Target left in place (Spec.Keep), to
// tell the user; none for any other Target.
func Kept(t contract.Target) []string {
	if pg, ok := t.(*pgstore.Target); ok {
		return pg.Kept()
	}
	return nil
}

// KeptDocuments lists the documents on a server a Target left in place
// (Spec.Keep), which its profile's teardown would have removed; none for
// any other Target.
func KeptDocuments(t contract.Target) []string {
	if mt, ok := t.(*mcpclient.Target); ok {
		return mt.Kept()
	}
	return nil
}

// Postgres reports whether the spec names a PostgreSQL server.
func (s Spec) Postgres() bool {
	return strings.HasPrefix(s.Store, "postgres://") || strings.HasPrefix(s.Store, "postgresql://")
}

// Check validates the spec without opening anything (a database file's
// folder is probed with a file made and removed); its errors are
// *field.Error naming the Spec field ("store", "keep", "db", "synchronous").
// A URL is named without its password.
func (s Spec) Check() error {
	_, err := s.check()
	return err
}

// client is what check makes of a server target that holds: the target
// parsed, and the options of its client, with the profile loaded.
type client struct {
	spec mcpclient.TargetSpec
	opts mcpclient.Options
}

// check is Check, returning for a server target what Open dials.
func (s Spec) check() (client, error) {
	if err := s.checkStore(); err != nil {
		return client{}, err
	}
	if s.Synchronous != "" {
		if _, err := contract.SynchronousSettings.Parse(s.Synchronous); err != nil {
			return client{}, field.Wrap("synchronous", err)
		}
	}
	if s.InMemory && s.DBDir != "" {
		return client{}, field.Errorf("db", "a folder for the databases and in-memory databases exclude each other")
	}
	if s.DBDir != "" {
		if st, err := os.Stat(s.DBDir); err == nil && !st.IsDir() {
			return client{}, field.Errorf("db", "%s is not a folder", s.DBDir)
		}
	}
	if s.Profile != "" && !s.Remote() {
		return client{}, field.Errorf("profile", "maps a server's own tools: give --target too")
	}
	if err := s.checkWire(); err != nil {
		return client{}, err
	}
	var prof *profile.Profile
	if s.Profile != "" {
		var err error
		if prof, err = loadProfile(s.Profile); err != nil {
			return client{}, err
		}
	}
	if s.Faults != nil && !s.Remote() {
		return client{}, field.Errorf("nemesis", "makes faults between notesbench and a server: give --target too")
	}
	if s.Spawn != "" && !s.Remote() {
		return client{}, field.Errorf("spawn", "starts the server of an HTTP --target: give --target too")
	}
	var c client
	if s.Remote() {
		var err error
		if c, err = s.checkRemote(prof); err != nil {
			return client{}, err
		}
	}
	if s.File != "" {
		if err := s.checkFile(); err != nil {
			return client{}, err
		}
	}
	return c, nil
}

// checkStore checks what names the store: a PostgreSQL URL and what may go
// with it, or the SQLite store's.
func (s Spec) checkStore() error {
	if !s.Postgres() {
		if s.Store != "" && s.Store != "sqlite" {
			return field.Errorf("store", "%q is not sqlite or a postgres:// URL", pgstore.Redact(s.Store))
		}
		if s.Keep && !s.Remote() {
			return field.Errorf("keep", "applies to a PostgreSQL store or a server target only")
		}
		return nil
	}
	safe := pgstore.Redact(s.Store)
	switch {
	case s.Remote():
		return field.Errorf("store", "%s and a server target exclude each other", safe)
	case s.InMemory:
		return field.Errorf("memory", "applies to the SQLite store, not to %s", safe)
	case s.DBDir != "" || s.File != "":
		return field.Errorf("db", "applies to the SQLite store, not to %s", safe)
	}
	if err := (&pgstore.Target{URL: s.Store}).Parse(); err != nil {
		return field.Wrap("store", err)
	}
	return nil
}

// checkRemote checks a server target with the flags that go with it, and
// returns its client, profile p among its options.
func (s Spec) checkRemote(p *profile.Profile) (client, error) {
	spec, err := mcpclient.Parse(s.Target)
	if err != nil {
		return client{}, field.Wrap("target", err)
	}
	opts, err := s.clientOptions()
	if err != nil {
		return client{}, err
	}
	opts.Profile = p
	if spec.Stdio() && s.Spawn != "" {
		return client{}, field.Errorf("spawn", "target %s is spawned already: --spawn starts an HTTP server", s.Target)
	}
	if err := mcpclient.CheckDir(spec); err != nil {
		return client{}, field.Wrap("target", err)
	}
	if err := s.checkPort(spec); err != nil {
		return client{}, err
	}
	if err := mcpclient.CheckFaults(spec, opts); err != nil {
		return client{}, field.Wrap("nemesis", err)
	}
	switch {
	case s.DBDir != "" || s.File != "":
		return client{}, field.Errorf("db", "target %s keeps its own databases", s.Target)
	case s.InMemory:
		return client{}, field.Errorf("memory", "target %s keeps its own databases", s.Target)
	}
	return client{spec: spec, opts: opts}, nil
}

// checkPort checks that an HTTP target and --spawn both name the port of a
// server notesbench starts, or neither does.
func (s Spec) checkPort(spec mcpclient.TargetSpec) error {
	if !spec.Stdio() && strings.Contains(s.Target, mcpclient.PortPlaceholder) != (s.Spawn != "") {
		if s.Spawn == "" {
			return field.Errorf("target", "%s names %s, the port of a server notesbench starts: give --spawn 'CMD' too", s.Target, mcpclient.PortPlaceholder)
		}
		return field.Errorf("target", "%s names no %s: a server notesbench starts (--spawn) listens on a port it chooses, which the URL and the command name as %s", s.Target, mcpclient.PortPlaceholder, mcpclient.PortPlaceholder)
	}
	if s.Spawn != "" && !strings.Contains(s.Spawn, mcpclient.PortPlaceholder) {
		return field.Errorf("spawn", "%q names no %s: notesbench starts the server on a free loopback port and reaches it where --target names %s, so the command must listen there (such as --http 127.0.0.1:%s)",
			s.Spawn, mcpclient.PortPlaceholder, mcpclient.PortPlaceholder, mcpclient.PortPlaceholder)
	}
	return nil
}

// checkFile checks the SQLite database file a spec names: not with a
// folder or in memory, a regular file if there, in a folder that takes new
// files.
func (s Spec) checkFile() error {
	switch {
	case s.InMemory:
		return field.Errorf("db", "an in-memory database is not kept in a file")
	case s.DBDir != "":
		return field.Errorf("db", "names both a folder and a file")
	}
	if st, err := os.Stat(s.File); err == nil && st.IsDir() {
		return field.Errorf("db", "%s is a folder, not a database file", s.File)
	} else if err == nil && !st.Mode().IsRegular() {
		return field.Errorf("db", "%s is not a regular file", s.File)
	}
	// SQLite makes the file, and beside it its WAL and shared-memory
	// files: the folder must be there and take new files.
	dir := filepath.Dir(s.File)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return field.Errorf("db", "cannot create %s: %s is not a folder", s.File, dir)
	}
	if err := atomicfile.ProbeFolder(dir); err != nil {
		return field.Errorf("db", "cannot create %s: %v", s.File, err)
	}
	return nil
}

// Open returns the Target the spec names. Close it when the runs are done. A
// server is connected to at once, and its tools checked: an unreachable
// server, one that does not speak MCP or lacks a tool is an error naming it
// (not a field error: the spec was well formed). So is a PostgreSQL server
// that cannot be reached, refuses the login or does not let the role create
// schemas: a *pgstore.Error naming the URL without its password.
func Open(ctx context.Context, s Spec) (contract.Target, error) {
	c, err := s.check()
	if err != nil {
		return nil, err
	}
	if s.Postgres() {
		return openPostgres(ctx, s)
	}
	if s.Remote() {
		return mcpclient.Dial(ctx, c.spec, c.opts)
	}
	return &sqliteTarget{&store.Target{Dir: s.DBDir, TempParent: s.TempDir, InMemory: s.InMemory, Synchronous: contract.Synchronous(s.Synchronous)}}, nil
}

// sqliteTarget is the embedded store's Target, whose runs' files go in the
// folder --db names: a file there the store did not create, named as a
// run's database, is a field error naming "db" (the user named the wrong
// folder, or keeps a file of their own there), as OpenBackend's --db file
// is.
type sqliteTarget struct{ *store.Target }

func (t *sqliteTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.Target.Open(ctx, run)
	var foreign *store.ForeignError
	if errors.As(err, &foreign) {
		return nil, field.Wrap("db", foreign)
	}
	return b, err
}

// OpenBackend opens one Backend serving variant v, for as long as it is open:
// the SQLite database in s.File (created when missing, kept when closed, and
// shared with any other process that opens it), a private in-memory
// database with s.InMemory, or a fresh schema on the PostgreSQL server s.Store
// names (dropped when closed, unless s.Keep). Seed seeds the random suffix of us-suffix
// versions. Closing the Backend checkpoints the database. A file that is not
// the SQLite store's (store.ForeignError) is a field error naming "db".
func OpenBackend(s Spec, v contract.Variant, seed uint64) (contract.Backend, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	if s.Postgres() {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		defer cancel()
		t, err := openPostgres(ctx, s)
		if err != nil {
			return nil, err
		}
		run := contract.RunSpec{Name: "serve", Variant: v, Seed: seed}
		if s.Schema != "" {
			return t.OpenSchema(ctx, run, s.Schema)
		}
		return t.Open(ctx, run)
	}
	path := s.File
	switch {
	case s.InMemory:
		path = store.InMemory
	case path == "":
		return nil, field.Errorf("db", "no database file named")
	}
	// A server serves many sessions through one store: their writes queue in
	// Go, committed in groups, rather than sleep in SQLite's busy handler.
	st, err := store.Open(path, store.Options{Guard: v.Guard, VersionFormat: v.VersionFormat, Order: v.Order, KeyReuse: v.KeyReuse,
		Synchronous: contract.Synchronous(s.Synchronous), Seed: seed, QueueWrites: true})
	var foreign *store.ForeignError
	if errors.As(err, &foreign) {
		return nil, field.Wrap("db", foreign) // the user named the wrong file
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// clientOptions are the options of the MCP client of s, but its profile.
func (s Spec) clientOptions() (mcpclient.Options, error) {
	opts := mcpclient.Options{Note: s.Note, LenientSchemas: s.LenientSchemas, Version: s.ClientVersion, Keep: s.Keep,
		Protocol: s.Protocol, Sessions: s.Sessions, Balance: s.Balance, Token: s.Token,
		CallTimeout: s.CallTimeout, ConnectTimeout: s.StartTimeout, Faults: s.Faults, TempDir: s.TempDir}
	if s.Spawn != "" {
		words, err := mcpclient.SplitCommand(s.Spawn)
		if err != nil {
			return opts, field.Errorf("spawn", "%q: %v", s.Spawn, err)
		}
		opts.Spawn = words
	}
	return opts, nil
}

// loadProfile loads the profile a Spec names; a profile that cannot be used
// is a field error naming "profile", and, in its text, the profile field.
func loadProfile(nameOrFile string) (*profile.Profile, error) {
	p, err := profile.Load(nameOrFile)
	var pe *profile.Error
	if errors.As(err, &pe) {
		msg := pe.Source + ": " + pe.Err.Error()
		if pe.Field != "" {
			msg = pe.Source + ": " + pe.Field + ": " + pe.Err.Error()
		}
		return nil, field.Errorf("profile", "%s", msg)
	}
	return p, err
}

// checkTimeout bounds the connection Open makes to a PostgreSQL server when
// the caller's context sets no deadline.
const checkTimeout = 30 * time.Second

// openPostgres connects to the server once, so that an unreachable server, a
// refused login or a role that may not create schemas is reported before any
// run starts.
func openPostgres(ctx context.Context, s Spec) (*pgstore.Target, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, checkTimeout)
		defer cancel()
	}
	t := &pgstore.Target{URL: s.Store, Synchronous: contract.Synchronous(s.Synchronous), Keep: s.Keep}
	if err := t.Check(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// Memory is the in-memory embedded target: what verdict replications and the
// experiments that never touch a file run on.
func Memory() contract.Target { return &store.Target{InMemory: true} }

// EngineVersion is the version of the embedded SQLite engine.
func EngineVersion() string { return store.EngineVersion() }

// EngineDriver names the embedded SQLite implementation.
const EngineDriver = store.Driver
