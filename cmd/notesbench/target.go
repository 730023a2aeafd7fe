package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/sim"
)

// targetFlags choose what serves the contract: the embedded store, or any MCP
// server.
type targetFlags struct {
	store   string
	keep    bool
	target  string
	note    string
	profile string
	// maxErrors is --max-errors: the server errors a run may have.
	maxErrors int
	// How the server is reached: --protocol, --sessions, --balance;
	// sessionsName is the name of the session-mode flag (sessionsFlag).
	protocol, sessions, balance, sessionsName string
	// tokenFile is --token-file: the file of the bearer token an HTTP
	// target needs.
	tokenFile string
	// faults are the server's faults and process (faults.go).
	faults faultFlags

	opened    contract.Target // made by open; close releases it
	storeName string          // the PostgreSQL store, without its password
	flags     *pflag.FlagSet
}

// register adds the flags to fs; nemesis adds those of faults a run takes.
func (t *targetFlags) register(fs *pflag.FlagSet, nemesis bool) {
	t.flags = fs
	defer t.faults.register(fs, nemesis)
	fs.StringVar(&t.store, "store", defaultStore(), "the embedded store: sqlite, or a postgres:// URL (each run in a schema of its own; default $NOTESBENCH_POSTGRES_URL when set, unless --target names a server)")
	fs.BoolVar(&t.keep, "keep", false, "with a PostgreSQL store: leave each run's schema for inspection, and print its name; with --target: skip the profile's teardown, leaving each run's documents, and print their names")
	fs.StringVar(&t.target, "target", "embedded", "what serves the contract: embedded, stdio:COMMAND [ARGS] (spawn an MCP server; {dir} in it is a fresh folder for its state, made at each open and removed after) or http://HOST:PORT/PATH (streamable HTTP)")
	fs.StringVar(&t.note, "note", "", "with --target: an existing, fresh Note to run on, for a server that cannot create Notes")
	registerProfile(fs, &t.profile)
	fs.IntVar(&t.maxErrors, "max-errors", sim.DefaultMaxErrors, "end a run once this many of its calls ended in a server error (a refusal other than a version conflict, or an outcome nobody knows), keeping what it measured; the command then exits 1")
	registerWire(fs, &t.protocol, &t.balance, &t.tokenFile)
	t.sessionsName = t.sessionsFlag()
	fs.StringVar(&t.sessions, t.sessionsName, "", "with --target: per-editor (every editor an MCP session of its own, the default) or shared (every editor's calls over one session, concurrently, as an agent's parallel tool calls)")
}

// sessionsFlag names the session-mode flag: --sessions, or --mcp-sessions on
// a command whose --sessions is a parameter of its own (sources: how many
// sessions a run has).
func (t *targetFlags) sessionsFlag() string {
	if t.flags.Lookup("sessions") != nil {
		return "mcp-sessions"
	}
	return "sessions"
}

// registerWire adds the flags of how a server is reached to fs: the
// protocol version, and the choice of a replica.
func registerWire(fs *pflag.FlagSet, protocol, balance, tokenFile *string) {
	fs.StringVar(tokenFile, "token-file", "", "with an HTTP --target: every request carries the bearer token this file holds (a server beyond loopback needs one: notesbench serve --token-file)")
	fs.StringVar(protocol, "protocol", "", "with --target: the MCP protocol version to speak, one of "+strings.Join(backend.Protocols(), ", ")+" (default: the newest the server speaks)")
	fs.StringVar(balance, "balance", "", "with a --target of several URLs (replicas, comma-separated): how each call's replica is chosen, random (seeded, the default) or round-robin")
}

// wireOf says how the runs on target reach its server; the zero Wire for an
// embedded store.
func wireOf(target contract.Target) contract.Wire {
	if w, ok := target.(contract.Wired); ok {
		return w.Wire()
	}
	return contract.Wire{}
}

// checkMaxErrors checks --max-errors.
func (t *targetFlags) checkMaxErrors() error {
	if t.maxErrors < 1 {
		return cli.Usagef("--max-errors", "must be at least 1 (a run ends once this many of its calls ended in an error)")
	}
	return nil
}

// registerProfile adds the --profile flag to fs.
func registerProfile(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "profile", "", "with --target: map the experiments onto the server's own tools, by a profile file or a built-in profile ("+strings.Join(profile.Builtins(), ", ")+"; notesbench profiles lists them); default the Notes contract's tools")
}

// defaultStore is the store when --store is not given: the PostgreSQL server
// NOTESBENCH_POSTGRES_URL names, when it is set, else SQLite.
func defaultStore() string {
	if u := os.Getenv("NOTESBENCH_POSTGRES_URL"); u != "" {
		return u
	}
	return "sqlite"
}

// name names the target for the record: the server, and the profile its
// tools are mapped through.
func (t *targetFlags) name() string {
	if t.profile == "" {
		return t.target
	}
	return t.target + " (profile " + t.profile + ")"
}

// nemesis says which faults the runs take, "" for none.
func (t *targetFlags) nemesis() string { return t.faults.describe() }

// remote reports whether the flags name a server.
func (t *targetFlags) remote() bool { return t.target != "" && t.target != "embedded" }

// open returns the Target the flags name, with spec's embedded settings; a
// server is connected to at once. inMemory says that the experiment's
// embedded runs go to in-memory databases: they do unless the flags name a
// PostgreSQL store, a server, or --keep. Close it with close.
func (t *targetFlags) open(ctx context.Context, spec backend.Spec, inMemory bool) (contract.Target, error) {
	spec, err := t.spec(spec)
	if err != nil {
		return nil, err
	}
	t.storeName = spec.StoreName()
	if inMemory && !t.remote() && !spec.Postgres() && !t.keep {
		t.opened = backend.Memory()
		return t.opened, nil
	}
	target, err := openTarget(ctx, t.flags, spec)
	if err != nil {
		return nil, err
	}
	t.opened = target
	return target, nil
}

// spec returns spec with what the flags say of the target: the store or
// server, the profile, how it is reached, its faults. Every error is one
// line naming its flag.
func (t *targetFlags) spec(spec backend.Spec) (backend.Spec, error) {
	if t.note != "" && !t.remote() {
		return spec, cli.Usagef("--note", "names a Note on a server: give --target too")
	}
	if t.profile != "" && !t.remote() {
		return spec, cli.Usagef("--profile", "maps a server's own tools: give --target too")
	}
	if t.sessions != "" {
		if _, err := contract.SessionModes.Parse(t.sessions); err != nil {
			return spec, cli.UsageErr("--"+t.sessionsName, err)
		}
		if !t.remote() {
			return spec, cli.Usagef("--"+t.sessionsName, "says how a server is reached: give --target too")
		}
	}
	spec.Store, spec.Keep = t.store, t.keep
	if t.remote() && !t.flags.Changed("store") {
		// $NOTESBENCH_POSTGRES_URL is the default of the embedded store; a
		// server target keeps its own.
		spec.Store = ""
	}
	spec.Target, spec.Note, spec.ClientVersion, spec.Profile = t.target, t.note, notesbenchVersion(), t.profile
	spec.Protocol, spec.Sessions, spec.Balance = t.protocol, contract.SessionMode(t.sessions), contract.Balance(t.balance)
	if t.tokenFile != "" {
		var err error
		if spec.Token, err = cli.ReadToken(t.tokenFile); err != nil {
			return spec, cli.UsageErr("--token-file", err)
		}
	}
	if err := t.faults.apply(&spec, t.remote()); err != nil {
		return spec, err
	}
	return spec, nil
}

// openTarget is backend.Open with its errors told apart: a spec field is a
// usage error naming its flag in fs, anything else a store or server that
// could not be reached.
func openTarget(ctx context.Context, fs *pflag.FlagSet, spec backend.Spec) (contract.Target, error) {
	if spec.Remote() {
		wireGC()
	}
	target, err := backend.Open(ctx, spec)
	if err != nil {
		if ferr := cli.FlagError(fs, err); ferr != err {
			return nil, ferr
		}
		return nil, cli.ReachError{Err: err}
	}
	return target, nil
}

// close releases the target open made, if any, and tells a of the schemas
// it kept.
func (t *targetFlags) close(a *app) error {
	if t.opened == nil {
		return nil
	}
	for _, schema := range backend.Kept(t.opened) {
		fmt.Fprintf(a.stderr, "notesbench: kept schema %s on %s\n", schema, t.storeName)
	}
	for _, doc := range backend.KeptDocuments(t.opened) {
		fmt.Fprintf(a.stderr, "notesbench: kept document %s on %s\n", doc, t.target)
	}
	return t.opened.Close()
}
