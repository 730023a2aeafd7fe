package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/serve"
)

// defaultServeDB is the database serve keeps when --db names none: a file in
// the working directory.
const defaultServeDB = "notesbench.db"

// serveOptions holds the serve command's flags.
type serveOptions struct {
	app           *app
	http          string
	db            string
	memory        bool
	guard         string
	versionFormat string
	order         string
	synchronous   string
	log           bool
	extensions    bool
	store         string
	keep          bool

	flags *pflag.FlagSet // for flagError
}

func newServeCmd(a *app, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{app: a}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Notes contract as an MCP server, over stdio or streamable HTTP",
		Long: `serve exposes the contract notesbench measures as an MCP server: the seven tools
of the published tools/list, on SQLite, under the contract variant the flags
name. Contract outcomes (version_conflict, not_found, invalid_argument) are tool
results with isError; protocol faults are JSON-RPC errors.

It speaks MCP on stdin and stdout, or streamable HTTP at /mcp with --http
(ADDR without a host listens on 127.0.0.1 only). The database is the file
` + defaultServeDB + ` in the working directory unless --db names another (kept, and
shared with every serve process that opens it) or --memory keeps it in memory.

Beside the seven tools it lists extension tools, named notesbench_ and marked in
_meta as not part of the contract: a fresh Note for each run, the person's app
actions and a description of what it serves; --extensions=false hides them.

SIGINT or SIGTERM stops it gracefully: calls in flight finish, the database is
checkpointed and closed, and it exits 0.`,
		Example: examples([]string{
			"notesbench serve                          # stdio; the database is ./notesbench.db",
			"notesbench serve --http 127.0.0.1:8765    # streamable HTTP at /mcp, on loopback",
			"notesbench serve --guard tab --version-format us-suffix --log",
		}),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("db") && opts.memory {
				return usagef("--memory", "cannot be used with --db")
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
	fs.StringVar(&opts.synchronous, "synchronous", "normal", "SQLite synchronous setting: normal or full")
	fs.BoolVar(&opts.log, "log", false, "write one line per tool call to stderr")
	fs.StringVar(&opts.store, "store", defaultStore(), "sqlite (the --db file), or a postgres:// URL: a schema of this process's own, dropped when serve stops (default $NOTESBENCH_POSTGRES_URL when set); serve it over --http to share it between sessions")
	fs.BoolVar(&opts.keep, "keep", false, "with a PostgreSQL store: leave the schema in place when serve stops")
	fs.BoolVar(&opts.extensions, "extensions", true, "also list the notesbench_ extension tools (fresh Notes, the person's actions)")
	completeFlag(cmd, "guard", false, contract.Guards.Strings()...)
	completeFlag(cmd, "version-format", false, contract.VersionFormats.Strings()...)
	completeFlag(cmd, "order", false, contract.Orders.Strings()...)
	completeFlag(cmd, "synchronous", false, contract.SynchronousSettings.Strings()...)
	return cmd
}

// variant parses the variant flags.
func (o *serveOptions) variant() (contract.Variant, error) {
	g, err := contract.Guards.Parse(o.guard)
	if err != nil {
		return contract.Variant{}, usageErr("--guard", err)
	}
	f, err := contract.VersionFormats.Parse(o.versionFormat)
	if err != nil {
		return contract.Variant{}, usageErr("--version-format", err)
	}
	ord, err := contract.Orders.Parse(o.order)
	if err != nil {
		return contract.Variant{}, usageErr("--order", err)
	}
	return contract.Variant{Guard: g, VersionFormat: f, Order: ord}, nil
}

func runServe(ctx context.Context, o *serveOptions) error {
	a := o.app
	wireGC()
	v, err := o.variant()
	if err != nil {
		return err
	}
	spec := backend.Spec{Store: o.store, Keep: o.keep, InMemory: o.memory, Synchronous: o.synchronous}
	where := "in memory"
	if spec.Postgres() {
		where = spec.StoreName()
	} else if !o.memory {
		if spec.File, err = filepath.Abs(o.db); err != nil {
			return usageErr("--db", err)
		}
		where = spec.File
	}
	if err := spec.Check(); err != nil {
		return flagError(o.flags, err)
	}
	var ln net.Listener
	if o.http != "" {
		addr, err := serve.ListenAddr(o.http)
		if err != nil {
			return usageErr("--http", err)
		}
		if ln, err = net.Listen("tcp", addr); err != nil {
			return reachError{fmt.Errorf("--http: %w", err)}
		}
		defer ln.Close()
	}
	b, err := backend.OpenBackend(spec, v, uint64(time.Now().UnixNano()))
	if err != nil {
		return fmt.Errorf("opening the database %s: %w", where, err)
	}
	var logw io.Writer
	if o.log {
		logw = a.stderr
	}
	describe := fmt.Sprintf("SQLite %s (%s), %s", backend.EngineVersion(), backend.EngineDriver, where)
	if schema := backend.Schema(b); schema != "" {
		where = "PostgreSQL " + where + ", schema " + schema
		describe = where
	}
	srv, err := serve.New(ctx, b, serve.Options{Version: notesbenchVersion(), Describe: describe, Variant: v,
		Extensions: o.extensions, Log: logw})
	if err != nil {
		b.Close()
		return err
	}
	if ln == nil {
		fmt.Fprintf(a.stderr, "notesbench serve: MCP over stdio; database %s; %s\n", where, v)
		err = srv.Serve(ctx, &mcp.IOTransport{Reader: readCloser(a.stdin), Writer: nopWriteCloser{a.stdout}})
	} else {
		url := "http://" + ln.Addr().String() + serve.HTTPPath
		fmt.Fprintf(a.stderr, "notesbench serve: listening on %s; database %s; %s\n", url, where, v)
		err = srv.ServeListener(ctx, ln)
	}
	if cerr := srv.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing the database %s: %w", where, cerr))
	}
	if err == nil && ctx.Err() != nil {
		fmt.Fprintln(a.stderr, "notesbench serve: stopped; database closed")
	}
	return err
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
