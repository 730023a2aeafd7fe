package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/clientaudit"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/report"
)

// clientFlags are the audit's flags for a client (--client).
type clientFlags struct {
	command    string
	lines      int
	faults     string
	hits       int
	seed       uint64
	hold, slow time.Duration
	runTimeout time.Duration
	keyReuse   string
}

// clientOnly are the flags of a client audit alone.
var clientOnly = []string{"lines", "faults", "hits", "seed", "hold", "slow", "run-timeout", "key-reuse"}

func (c *clientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.command, "client", "", "audit a client library instead of a server: the driver command (run by sh -c) that appends lines through it; {serve} in it stands for the command that starts the server over stdio (docs/clients.md)")
	fs.IntVar(&c.lines, "lines", 10, "with --client: lines the driver appends in each run")
	fs.StringVar(&c.faults, "faults", "all", "with --client: the faults to run, comma-separated, or all: "+strings.Join(clientaudit.FaultNames(), ", "))
	fs.IntVar(&c.hits, "hits", 1, "with --client: writes each fault hits in its run, chosen by --seed")
	fs.Uint64Var(&c.seed, "seed", 1, "with --client: chooses which writes each fault hits")
	fs.DurationVar(&c.hold, "hold", 70*time.Second, "with --client: how long a lost reply holds the connection before closing it (past the 60 s a library commonly waits)")
	fs.DurationVar(&c.slow, "slow", 70*time.Second, "with --client: how late a slow reply comes")
	fs.DurationVar(&c.runTimeout, "run-timeout", 10*time.Minute, "with --client: the longest one run of the driver may take")
	fs.StringVar(&c.keyReuse, "key-reuse", "replay", "with --client: what the server answers a key sent again with other arguments: replay (the first result) or refuse (invalid_argument), as serve --key-reuse")
}

// options returns the client audit's options as the flags set them (the
// run adds its Backend, relay and outputs); what cannot run is refused
// naming the flag.
func (c *clientFlags) options(fs *pflag.FlagSet) (clientaudit.Options, error) {
	if strings.TrimSpace(c.command) == "" {
		return clientaudit.Options{}, cli.Usagef("--client", "names no driver command")
	}
	for _, name := range []string{"target", "profile", "budget", "baseline", "allow", "parallel", "note", "spawn", "store"} {
		if fs.Changed(name) {
			return clientaudit.Options{}, cli.Usagef("--"+name, "audits a server; --client audits a client against notesbench's own server")
		}
	}
	opts := clientaudit.Options{Command: c.command, Lines: c.lines, Seed: c.seed, Hits: c.hits, Hold: c.hold, Slow: c.slow, RunTimeout: c.runTimeout}
	var err error
	if opts.Faults, err = clientaudit.ParseFaults(c.faults, opts.Stdio()); err != nil {
		return opts, cli.UsageErr("--faults", err)
	}
	if err := opts.Validate(); err != nil {
		return opts, cli.FlagError(fs, err)
	}
	reuse, err := contract.KeyReuses.Parse(c.keyReuse)
	if err != nil {
		return opts, cli.UsageErr("--key-reuse", err)
	}
	if reuse == contract.KeyRefuse {
		opts.Variant.KeyReuse = reuse // replay is the zero value, as every result writes it
	}
	return opts, nil
}

// runClientAudit is audit --client: the driver once per fault against
// notesbench's own server, judged from its lines, the requests and the Note.
func runClientAudit(ctx context.Context, o *auditOptions) (err error) {
	a := o.app
	format, err := o.format.parse(a)
	if err != nil {
		return err
	}
	opts, err := o.client.options(o.target.flags)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := report.CheckAuditFolder(o.out); err != nil {
			return cli.UsageErr("--out", err)
		}
	}
	if opts.Backend, err = backend.OpenBackend(backend.Spec{InMemory: true}, opts.Variant, opts.Seed); err != nil {
		return err
	}
	defer cli.Closing(a.stderr, "the store", opts.Backend.Close, &err)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	opts.Relay, opts.ServerVersion, opts.Stderr = []string{self, "relay"}, notesbenchVersion(), a.stderr
	opts.Progress = func(fault string) { fmt.Fprintf(a.stderr, "audit --client: running the driver under %s\n", fault) }
	out, err := clientaudit.Run(ctx, opts)
	if err != nil {
		return err
	}
	if err := o.write(format, report.ClientAuditOutput(out), func(dir string) error { return report.WriteClientAuditFolder(dir, out) }); err != nil {
		return err
	}
	return measured(clientaudit.Verdict(out))
}

// newRelayCmd is the hidden command {serve} stands for in a client audit's
// driver: it passes its stdin and stdout to the audit at SOCKET.
func newRelayCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:    "relay SOCKET",
		Short:  "Pass stdin and stdout to a client audit (what {serve} starts)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return clientaudit.Relay(args[0], a.stdin, a.stdout)
		},
	}
}
