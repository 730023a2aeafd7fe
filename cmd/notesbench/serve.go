package main

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/serve"
)

// defaultServeDB is the database serve keeps when --db names none: a file in
// the working directory.
const defaultServeDB = "notesbench.db"

// defaultServeNote is the Note serve makes sure exists when --note names
// none, so that a plain client has a Note to work on.
const defaultServeNote = "note-1"

// serveOptions holds the serve command's flags.
type serveOptions struct {
	app           *app
	http          string
	db            string
	memory        bool
	guard         string
	versionFormat string
	order         string
	keyReuse      string
	synchronous   string
	log           bool
	extensions    string
	store         string
	keep          bool
	note          string
	tokenFile     string
	allowOrigins  []string
	allowHosts    []string
	maxSessions   int
	maxInflight   int
	schema        string
	person        string
	seed          uint64
	history       string

	flags *pflag.FlagSet // for flagError
}

func newServeCmd(a *app, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{app: a}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Notes contract as an MCP server, over stdio or streamable HTTP",
		Long: `serve exposes the contract notesbench measures as an MCP server: the seven tools
of the published tools/list, exactly as published, on SQLite, under the contract
variant the flags name. Contract outcomes (version_conflict, not_found,
invalid_argument) are tool results with isError; protocol faults are JSON-RPC
errors. It makes sure the Note --note names exists (creating it when missing)
and says its ID, so that a client can start with list_note_tabs.

It speaks MCP on stdin and stdout, one message a line: a line that is no
message is answered with a JSON-RPC error and the server goes on; at the end of
the input it finishes the calls it read, then exits 0. With --http it serves
streamable HTTP at /mcp: MCP 2026-07-28 statelessly (no handshake, no session:
each request carries its protocol version and capabilities) and 2025-11-25 and
older with sessions, the SDK choosing per request. ADDR without a host listens on 127.0.0.1 only; any
address beyond loopback needs a bearer token (--token-file, a regular file of at
most ` + strconv.Itoa(cli.MaxTokenBytes>>10) + ` KiB, or $` + serve.TokenEnv + `) that every request must carry; a request without
it is refused from its headers, its body unread. A request's headers and body
must arrive within ` + serve.DefaultReadTimeout.String() + `. Requests from a browser origin other than the
server's own are refused unless --allow-origin names it, and requests naming a
Host other than a loopback name or the server's address unless --allow-host
names it. At most --max-sessions sessions are open at once; a session idle for
5 minutes is closed. At most --max-inflight stateless requests are served at
once; one beyond gets HTTP 503 with Retry-After. The database is the file ` + defaultServeDB + ` in the working
directory unless --db names another (kept, and shared with every serve process
that opens it; a file notesbench did not create is refused) or --memory keeps it
in memory. Several serve processes on one file, or on one PostgreSQL schema
(--store postgres://… --schema NAME, created when missing and kept), are
replicas of one server: a load balancer may send each request to any of them.
See docs/serve.md for what SQLite guarantees across processes.

Beside the seven tools it has extension tools, named notesbench_ and marked in
_meta as not part of the contract: a fresh Note for each run, the person's app
actions (which write with no version check) and a description of what it
serves. They are listed to a client that asks for them in its initialize
(notesbench's own client does), to every client with --extensions, and to none
with --extensions=none.

To judge a client rather than the server, --person has a scripted person
edit the Note beside it and --history records every call of every session
for notesbench check (docs/agents.md).

SIGINT or SIGTERM stops it gracefully: calls in flight finish, the database is
checkpointed and closed, and it exits 0.

See docs/serve.md.`,
		Example: cli.Examples([]string{
			"notesbench serve                          # stdio; the database is ./notesbench.db",
			"notesbench serve --http 127.0.0.1:8765    # streamable HTTP at /mcp, on loopback",
			"notesbench serve --guard tab --version-format us-suffix --log",
			"notesbench serve --http 0.0.0.0:8765 --token-file token.txt --allow-host notes.example.com",
			"notesbench serve --http :8001 --store postgres://nb@db/notes --schema notes   # a replica; start more alike",
		}),
		Args: func(cmd *cobra.Command, args []string) error {
			// --extensions takes its value after "=" (alone it means all):
			// "--extensions none" leaves "none" as an argument, which can
			// only have been meant as the flag's value.
			if len(args) > 0 && followsBare(a.args, "--extensions", args[0]) {
				if _, err := serve.ExtensionSettings.Parse(args[0]); err != nil {
					return cli.UsageErr("--extensions", err)
				}
				opts.extensions, args = args[0], args[1:]
			}
			return cli.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("db") && opts.memory {
				return cli.Usagef("--memory", "cannot be used with --db")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.flags = fs
	fs.StringVar(&opts.http, "http", "", "serve streamable HTTP on this address, e.g. 127.0.0.1:8765 or :0 (default: stdio)")
	fs.StringVar(&opts.db, "db", defaultServeDB, "the SQLite database file, created when missing and kept")
	fs.BoolVar(&opts.memory, "memory", false, "keep the database in memory (gone when serve stops; over stdio, one per process)")
	fs.StringVar(&opts.guard, "guard", "note", "version scope: none, note or tab")
	fs.StringVar(&opts.versionFormat, "version-format", "counter", "version format: ms, us-suffix or counter")
	fs.StringVar(&opts.order, "order", "key-first", "which check a write makes first: key-first or version-first")
	fs.StringVar(&opts.keyReuse, "key-reuse", "replay", "what a known idempotency key sent with other arguments (the expected version aside) gets: replay (the first result, as published) or refuse (invalid_argument on idempotency_key, as Stripe does)")
	fs.StringVar(&opts.synchronous, "synchronous", "normal", "SQLite synchronous setting: normal or full")
	fs.BoolVar(&opts.log, "log", false, "write one line per tool call to stderr")
	fs.StringVar(&opts.store, "store", defaultStore(), "sqlite (the --db file), or a postgres:// URL: a schema of this process's own, dropped when serve stops (default $NOTESBENCH_POSTGRES_URL when set); serve it over --http to share it between sessions")
	fs.BoolVar(&opts.keep, "keep", false, "with a PostgreSQL store: leave the schema in place when serve stops")
	fs.StringVar(&opts.extensions, "extensions", "on-request", "to whom the notesbench_ extension tools are listed: on-request (clients that ask), all, or none")
	fs.Lookup("extensions").NoOptDefVal = "all"
	fs.StringVar(&opts.note, "note", defaultServeNote, `a Note to work on, created at start when missing ("" for none)`)
	cli.EmptyMeans(fs, "note", "no Note")
	fs.StringVar(&opts.tokenFile, "token-file", "", "with --http: every request must carry the token this file holds (Authorization: Bearer TOKEN); default $"+serve.TokenEnv+"; needed beyond loopback")
	fs.StringSliceVar(&opts.allowOrigins, "allow-origin", nil, "with --http: browser origins to serve beside the server's own, e.g. http://localhost:6274 (comma-separated or repeated)")
	fs.StringSliceVar(&opts.allowHosts, "allow-host", nil, "with --http: Host names to serve beside loopback names and the address listened on, e.g. notes.example.com (comma-separated or repeated)")
	fs.IntVar(&opts.maxSessions, "max-sessions", serve.DefaultMaxSessions, "with --http: the most sessions (2025-11-25 clients) open at once; an initialize beyond gets HTTP 503")
	fs.IntVar(&opts.maxInflight, "max-inflight", serve.DefaultMaxInflight, "with --http: the most stateless (2026-07-28) requests served at once; one beyond gets HTTP 503 with Retry-After")
	fs.StringVar(&opts.schema, "schema", "", "with a postgres:// --store: serve this schema, created when missing, kept when serve stops and shared with every serve that names it (default: a schema of this process's own)")
	fs.StringVar(&opts.person, "person", "", "a person edits the Note --note names beside the clients: every=DURATION (the mean time between edits)[,actions=LIST of "+serve.PersonActions.Want()+"; default append], e.g. every=2s,actions=append,rename")
	fs.Uint64Var(&opts.seed, "seed", 1, "with --person: the seed of the person's schedule (when it edits, and what)")
	fs.StringVar(&opts.history, "history", "", "record every call of every client session, and every edit of the person, in this JSON Lines file for notesbench check: written as it goes, ended when serve stops; a new file: a history there already is never replaced")
	cli.CompleteFlag(cmd, "guard", false, contract.Guards.Strings()...)
	cli.CompleteFlag(cmd, "version-format", false, contract.VersionFormats.Strings()...)
	cli.CompleteFlag(cmd, "order", false, contract.Orders.Strings()...)
	cli.CompleteFlag(cmd, "key-reuse", false, contract.KeyReuses.Strings()...)
	cli.CompleteFlag(cmd, "synchronous", false, contract.SynchronousSettings.Strings()...)
	cli.CompleteFlag(cmd, "extensions", false, serve.ExtensionSettings.Strings()...)
	return cmd
}

// httpOptions parses the HTTP flags: the address to listen on, as
// serve.ListenAddr makes it, and what the server lets in, with the bearer
// token --token-file or $NOTESBENCH_TOKEN holds.
func (o *serveOptions) httpOptions() (string, serve.HTTPOptions, error) {
	if o.http == "" {
		for _, name := range []string{"token-file", "allow-origin", "allow-host", "max-sessions", "max-inflight"} {
			if o.flags.Changed(name) {
				return "", serve.HTTPOptions{}, cli.Usagef("--"+name, "applies to --http only")
			}
		}
		return "", serve.HTTPOptions{}, nil
	}
	addr, err := serve.ListenAddr(o.http)
	if err != nil {
		return "", serve.HTTPOptions{}, cli.UsageErr("--http", err)
	}
	ho := serve.HTTPOptions{MaxSessions: o.maxSessions, MaxInflight: o.maxInflight, AllowOrigins: o.allowOrigins, AllowHosts: o.allowHosts,
		Token: strings.TrimSpace(os.Getenv(serve.TokenEnv))}
	if o.tokenFile != "" {
		if ho.Token, err = cli.ReadToken(o.tokenFile); err != nil {
			return "", ho, cli.UsageErr("--token-file", err)
		}
	}
	return addr, ho, nil
}

// personSchedule returns the person's schedule --person and --seed give,
// nil without --person.
func (o *serveOptions) personSchedule() (*serve.PersonSchedule, error) {
	if o.person == "" {
		if o.flags.Changed("seed") {
			return nil, cli.Usagef("--seed", "applies to --person only")
		}
		return nil, nil
	}
	p, err := serve.ParsePerson(o.person)
	if err != nil {
		return nil, cli.UsageErr("--person", err)
	}
	p.Note, p.Seed = o.note, o.seed
	return &p, nil
}

// process puts the serve process the flags describe together, checked
// before anything is opened, and the spec of its backend.
func (o *serveOptions) process() (serve.Process, backend.Spec, error) {
	a := o.app
	v, err := serve.ParseVariant(o.guard, o.versionFormat, o.order, o.keyReuse)
	if err != nil {
		return serve.Process{}, backend.Spec{}, cli.FlagError(o.flags, err)
	}
	p := serve.Process{Options: serve.Options{Version: notesbenchVersion(), Variant: v, Note: o.note, Warn: a.stderr},
		HistoryPath: o.history, Command: cli.CommandLine(a.args), Stdio: serve.StdioTransport{Reader: a.stdin, Writer: a.stdout}}
	if p.Extensions, err = serve.ParseExtensions(o.extensions); err != nil {
		return serve.Process{}, backend.Spec{}, cli.UsageErr("--extensions", err)
	}
	if p.Addr, p.HTTP, err = o.httpOptions(); err != nil {
		return serve.Process{}, backend.Spec{}, err
	}
	if p.Person, err = o.personSchedule(); err != nil {
		return serve.Process{}, backend.Spec{}, err
	}
	if o.log {
		p.Log = a.stderr
	}
	if o.history != "" {
		if err := checkHistoryWritable(o.history); err != nil {
			return serve.Process{}, backend.Spec{}, cli.UsageErr("--history", err)
		}
	}
	if err := p.Validate(); err != nil {
		return serve.Process{}, backend.Spec{}, cli.FlagError(o.flags, err)
	}
	spec := backend.Spec{Store: o.store, Keep: o.keep, InMemory: o.memory, Synchronous: o.synchronous, Schema: o.schema}
	if !spec.Postgres() && !o.memory {
		if err := cli.DistinctOutputs(cli.File{Flag: "--db", Path: o.db}, cli.File{Flag: "--history", Path: o.history}); err != nil {
			return serve.Process{}, backend.Spec{}, err
		}
		if spec.File, err = filepath.Abs(o.db); err != nil {
			return serve.Process{}, backend.Spec{}, cli.UsageErr("--db", err)
		}
	}
	return p, spec, cli.FlagError(o.flags, spec.Check())
}

func runServe(ctx context.Context, o *serveOptions) error {
	wireGC()
	p, spec, err := o.process()
	if err != nil {
		return err
	}
	if p.Addr != "" {
		if p.Listener, err = net.Listen("tcp", p.Addr); err != nil {
			return cli.ReachError{Err: fmt.Errorf("--http: %w", err)}
		}
		defer p.Listener.Close()
	}
	b, err := backend.OpenBackend(spec, p.Variant, uint64(time.Now().UnixNano()))
	if err != nil {
		if ferr := cli.FlagError(o.flags, err); ferr != err {
			return ferr
		}
		return fmt.Errorf("opening the database %s: %w", cmp.Or(spec.StoreName(), spec.File, "in memory"), err)
	}
	p.Where, p.Describe, p.Redact = spec.Describe(b)
	return cli.FlagError(o.flags, p.Run(ctx, b))
}

// followsBare reports whether arg comes right after flag, given without a
// value, in the command line args.
func followsBare(args []string, flag, arg string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--" {
			return false
		}
		if args[i] == flag && args[i+1] == arg {
			return true
		}
	}
	return false
}
