package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// conformOptions holds the conform command's flags.
type conformOptions struct {
	app     *app
	target  string
	format  formatFlag
	note    string
	profile string
	// protocol, balance and tokenFile are --protocol, --balance and
	// --token-file.
	protocol, balance, tokenFile string
	// fastTime is --fast-time: how long the within-a-millisecond clause
	// may write before it says it could not tell.
	fastTime time.Duration
	flags    *pflag.FlagSet
}

func newConformCmd(a *app, runF func(context.Context, *conformOptions) error) *cobra.Command {
	opts := &conformOptions{app: a}
	cmd := &cobra.Command{
		Use:   "conform --target TARGET",
		Short: "Check a Notes MCP server against the write contract, clause by clause",
		Long: `conform checks a server clause by clause through its tools alone: tools/list
carries the seven tools with expected_version and idempotency_key required; a
stale expected_version is refused with a conflict naming the current version and
changes nothing; a write without expected_version is refused by the schema; a
resend with the same key returns the first result and writes once; a create
whose reply was lost, resent with the same key, makes one tab; versions
increase, and differ for two writes within a millisecond; per-tab versions, when
the server has them, spare a reader of another tab; of concurrent writers with
the same expected version exactly one wins. Where the write-ups leave a clause
open (the same key with other arguments, or for another tool; which check comes
first) it reports what the server does, as info.

TARGET is stdio:COMMAND [ARGS] (spawned, one process per session),
http://HOST:PORT/PATH (streamable HTTP) or embedded (the built-in SQLite
contract). Given several HTTP URLs, comma-separated, the servers are taken for
replicas of one behind a load balancer, and two more clauses run: a resend to
another replica returns the first result, and a write on one replica is seen
by the next read on another, which refuses a stale version. Sessions speak the
newest MCP protocol the server does (2026-07-28, stateless, first), unless
--protocol pins one; the report says which. conform writes to a fresh Note of its own, made with the server's
notesbench_create_note; on a server without it, --note names an existing,
fresh Note to use. --profile maps a server's own tools (a read and a write, a
create and a listing) onto the clauses; a clause about what the server lacks is
n/a.

A failed check prints the requests and replies that show it. conform exits 1
when any check fails.

See docs/serve.md (conform) and docs/profiles.md (through a profile).`,
		Example: cli.Examples([]string{
			"notesbench conform --target 'stdio:notesbench serve --db c.db'",
			"notesbench conform --target http://127.0.0.1:8765/mcp --format json",
			"notesbench conform --target 'stdio:npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp/nb' --profile filesystem",
		}),
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.target == "" {
				return cli.Usagef("--target", "required: stdio:COMMAND [ARGS], http://HOST:PORT/PATH or embedded")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConform(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.flags = fs
	fs.StringVar(&opts.target, "target", "", "the server: stdio:COMMAND [ARGS], http://HOST:PORT/PATH or embedded")
	opts.format.register(cmd, tablesOrJSON)
	fs.StringVar(&opts.note, "note", "", "an existing, fresh Note to write to, for a server that cannot create one")
	registerProfile(fs, &opts.profile)
	registerWire(fs, &opts.protocol, &opts.balance, &opts.tokenFile)
	fs.DurationVar(&opts.fastTime, "fast-time", conform.DefaultFastTime,
		"how long the within-a-millisecond clause may keep writing before it says it could not tell (on a loaded machine fewer writes come within a millisecond of each other)")
	return cmd
}

// maxFastTime bounds --fast-time.
const maxFastTime = 10 * time.Minute

// checksFailedError is a conform run with failed checks: exit code 1.
type checksFailedError struct {
	failed, checks int
	target         string
}

func (e checksFailedError) Error() string {
	return fmt.Sprintf("%d of %s failed against %s", e.failed, report.Count(e.checks, "check"), e.target)
}

func runConform(ctx context.Context, o *conformOptions) (err error) {
	a := o.app
	format, err := o.format.parse(o.app)
	if err != nil {
		return err
	}
	if o.fastTime <= 0 || o.fastTime > maxFastTime {
		return cli.Usagef("--fast-time", "must be above 0 and at most %v", maxFastTime)
	}
	var target contract.Target
	if o.target == "embedded" {
		if o.note != "" {
			return cli.Usagef("--note", "names a Note on a server, not on the embedded store")
		}
		if o.profile != "" {
			return cli.Usagef("--profile", "maps a server's own tools, not the embedded store's")
		}
		for _, f := range []struct{ name, value string }{{"--protocol", o.protocol}, {"--balance", o.balance}, {"--token-file", o.tokenFile}} {
			if f.value != "" {
				return cli.Usagef(f.name, "says how a server is reached, not the embedded store")
			}
		}
		target = backend.Memory()
	} else {
		spec := backend.Spec{Target: o.target, Note: o.note, LenientSchemas: true, ClientVersion: notesbenchVersion(), Profile: o.profile,
			Protocol: o.protocol, Balance: contract.Balance(o.balance)}
		if o.tokenFile != "" {
			if spec.Token, err = cli.ReadToken(o.tokenFile); err != nil {
				return cli.UsageErr("--token-file", err)
			}
		}
		if target, err = openTarget(ctx, o.flags, spec); err != nil {
			return err
		}
	}
	defer cli.Closing(o.app.stderr, "the target", target.Close, &err)
	rep, err := conform.Run(ctx, target, conform.Options{Name: o.target, FastTime: o.fastTime})
	if err != nil {
		return err
	}
	record := results.NewConformRecord(results.ConformConfig{Target: o.target, Note: o.note, Profile: o.profile, Wire: wireOf(target)}, rep, notesbenchVersion())
	if err := printResult(a, format, record, report.Section{Main: report.ConformTables(rep)}); err != nil {
		return err
	}
	if rep.Failed > 0 {
		return checksFailedError{rep.Failed, len(rep.Checks), o.target}
	}
	return nil
}
