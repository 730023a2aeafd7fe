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
	"github.com/notesbench/notesbench/results"
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

// The most lines a driver is asked to append, and the longest wait a fault
// may hold a reply: bounds that keep one run within minutes, not days.
const (
	maxClientLines = 1000
	maxClientWait  = 30 * time.Minute
)

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

// check refuses what cannot run, naming the flag.
func (c *clientFlags) check(fs *pflag.FlagSet, format report.Format) ([]clientaudit.WireFault, contract.Variant, error) {
	faults, err := c.checkFlags(fs, format)
	if err != nil {
		return nil, contract.Variant{}, err
	}
	reuse, err := contract.KeyReuses.Parse(c.keyReuse)
	if err != nil {
		return nil, contract.Variant{}, cli.UsageErr("--key-reuse", err)
	}
	var v contract.Variant
	if reuse == contract.KeyRefuse {
		v.KeyReuse = reuse
	}
	return faults, v, nil
}

func (c *clientFlags) checkFlags(fs *pflag.FlagSet, format report.Format) ([]clientaudit.WireFault, error) {
	if strings.TrimSpace(c.command) == "" {
		return nil, cli.Usagef("--client", "names no driver command")
	}
	for _, name := range []string{"target", "profile", "budget", "baseline", "allow", "parallel", "note", "spawn", "store"} {
		if f := fs.Lookup(name); f != nil && f.Changed {
			return nil, cli.Usagef("--"+name, "audits a server; --client audits a client against notesbench's own server")
		}
	}
	faults, err := clientaudit.ParseFaults(c.faults, strings.Contains(c.command, clientaudit.ServePlaceholder))
	if err != nil {
		return nil, cli.UsageErr("--faults", err)
	}
	switch {
	case c.lines < 1 || c.lines > maxClientLines:
		return nil, cli.Usagef("--lines", "is %d: a run appends 1 to %d lines", c.lines, maxClientLines)
	case c.hits < 1 || c.hits > c.lines:
		return nil, cli.Usagef("--hits", "is %d: a fault hits 1 to --lines (%d) writes", c.hits, c.lines)
	case c.hold <= 0 || c.hold > maxClientWait:
		return nil, cli.Usagef("--hold", "is %s: it must be above 0 and at most %s", c.hold, maxClientWait)
	case c.slow <= 0 || c.slow > maxClientWait:
		return nil, cli.Usagef("--slow", "is %s: it must be above 0 and at most %s", c.slow, maxClientWait)
	case c.runTimeout <= 0:
		return nil, cli.Usagef("--run-timeout", "is %s: it must be above 0", c.runTimeout)
	}
	return faults, nil
}

// runClientAudit is audit --client: the driver once per fault against
// notesbench's own server, judged from its lines, the requests and the Note.
func runClientAudit(ctx context.Context, o *auditOptions, fs *pflag.FlagSet) (err error) {
	a := o.app
	format, err := o.format.parse(a)
	if err != nil {
		return err
	}
	faults, variant, err := o.client.check(fs, format)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := report.CheckAuditFolder(o.out); err != nil {
			return cli.UsageErr("--out", err)
		}
	}
	b, err := backend.OpenBackend(backend.Spec{InMemory: true}, variant, o.client.seed)
	if err != nil {
		return err
	}
	defer cli.Closing(o.app.stderr, "the store", b.Close, &err)
	c := o.client
	self, err := os.Executable()
	if err != nil {
		return err
	}
	out, err := clientaudit.Run(ctx, clientaudit.Options{
		Relay:   []string{self, "relay"},
		Command: c.command, Lines: c.lines, Seed: c.seed, Faults: faults, PerRun: c.hits,
		Hold: c.hold, Slow: c.slow, RunTimeout: c.runTimeout, Backend: b, Variant: variant, ServerVersion: notesbenchVersion(),
		Stderr:   a.stderr,
		Progress: func(fault string) { fmt.Fprintf(a.stderr, "audit --client: running the driver under %s\n", fault) },
	})
	if err != nil {
		return err
	}
	if err := report.Write(a.stdout, format, a.width, report.ClientAuditOutput(out)); err != nil {
		return err
	}
	if o.out != "" {
		if err := cli.WriteWhole("--out", o.out, report.AuditMD, func(dir string) error { return report.WriteClientAuditFolder(dir, out) }); err != nil {
			return err
		}
	}
	switch {
	case out.Failed():
		return clientAuditFailed{out}
	case !out.Passed():
		return clientAuditUnfinished{out}
	}
	return nil
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

// clientAuditFailed is a client audit that found an anomaly or could not
// judge a run: exit code 1.
type clientAuditFailed struct{ a results.ClientAudit }

func (e clientAuditFailed) Error() string {
	return "audit of client " + e.a.Command + " " + report.ClientAuditVerdict(e.a)
}
func (clientAuditFailed) measured() {}

// clientAuditUnfinished is one interrupted before it found anything: exit
// code 3.
type clientAuditUnfinished struct{ a results.ClientAudit }

func (e clientAuditUnfinished) Error() string {
	return "audit of client " + e.a.Command + " " + report.ClientAuditVerdict(e.a)
}
func (clientAuditUnfinished) Unwrap() error { return cli.UnknownError{} }
func (clientAuditUnfinished) measured()     {}
