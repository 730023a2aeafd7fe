package main

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/audit"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/crash"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/spf13/cobra"
)

// auditOptions holds the audit command's flags.
type auditOptions struct {
	app      *app
	target   targetFlags
	format   formatFlag
	out      string
	allow    string
	baseline string
	budget   string
	parallel int
	// client holds the flags of a client audit (--client).
	client clientFlags

	// budgetValue, with budgetSet, is a budget a test runs in place of the
	// one --budget names.
	budgetValue audit.Budget
	budgetSet   bool
	// childEnv is added to the environment of the crash children, for tests
	// that re-execute their own binary as notesbench.
	childEnv []string
}

func newAuditCmd(a *app, runF func(context.Context, *auditOptions) error) *cobra.Command {
	opts := &auditOptions{app: a}
	var budgets []string
	for _, b := range audit.Budgets {
		budgets = append(budgets, "  - "+b.Name+": "+b.About)
	}
	cmd := &cobra.Command{
		Use:   "audit --target TARGET",
		Short: "Judge a server in one run: race, create, sources, conform, the checks and the faults, folded into one matrix of anomalies",
		Long: `audit runs what the target supports and folds what it found into one matrix:
race under the guard the server serves (re-applying and refreshing after a
conflict, where it reports conflicts; no guard where it has none), its history
judged by notesbench check; create and sources where the server maps a create
and a listing; conform; kill -9 (crash) where notesbench owns the store's
process; and the race again under each nemesis notesbench can make (a lost
reply, a duplicate send; a kill and a pause of a server it starts). Each row of
the matrix is an anomaly, with its counts (one per unit, never added across
units) over the modes that looked for it and a mark; each column is a mode.
Every count above 0 carries the operations of a kept history that prove one
instance, and the command that replays its run. The rows (--allow names):

` + anomalyHelp() + `

What the client policy costs (refresh's losses, a fresh key on each resend, a
key made from the URL as written) is shown apart: it is the client's, not the
server's. A mode that did not run says "not run" and why, never 0.

audit exits 1 when an anomaly is found that --allow does not name, a part ended
in an error, or, with --baseline, a count is worse than the baseline's; 3 when
nothing was judged wrong but a part was not judged (interrupted, or out of its
time); 0 otherwise. Every part ends within the budget's time; Ctrl-C writes what
was measured, marked unfinished. --out DIR writes audit.md, audit.json,
audit.html (one self-contained page with the plots, the proofs' timelines and
the checker's) and, under histories/, every history the audit judged.

Budgets (--budget):

` + strings.Join(budgets, "\n") + `

With --client CMD, audit judges a client library instead: CMD is a driver
written against it that appends --lines lines to a Note of notesbench's own
server, and audit runs it once without a fault and once per --faults fault on
the wire it owns, counting the library's own resends and the lines written
twice, told failed but written, and told written but missing
(docs/clients.md).

See docs/audit.md.`,
		Example: cli.Examples([]string{
			"notesbench audit --target 'stdio:notesbench serve --db audit.db'",
			"notesbench audit --target 'stdio:npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp/nb' --profile filesystem --allow lost-update,stale-write",
			"notesbench audit --target embedded --budget full --out audit-report/",
			"notesbench audit --client 'node clients/drivers/js/ts-sdk-1.mjs'",
		}),
		Args: cli.NoArgs,
		RunE: cli.Runner(opts, runF, runAudit),
	}
	fs := cmd.Flags()
	opts.target.register(fs, false)
	opts.format.register(cmd, tablesOrJSON|report.ContentPage)
	fs.StringVar(&opts.out, "out", "", "also write audit.md, audit.json and audit.html into this folder (each whole or not at all)")
	fs.StringVar(&opts.allow, "allow", "", "anomalies that do not fail the audit, comma-separated: "+strings.Join(results.AnomalyNames(), ", "))
	cli.EmptyMeans(fs, "allow", "no anomaly allowed")
	fs.StringVar(&opts.baseline, "baseline", "", "an earlier audit's JSON (audit.json): exit 1 when any count is worse than its")
	fs.StringVar(&opts.budget, "budget", "quick", "how much to run: "+contract.Choice(audit.BudgetNames()))
	fs.IntVar(&opts.parallel, "parallel", 0, "runs each experiment makes at once (0: each one's default); a server that loses concurrent writes to different documents shows it at the default")
	opts.client.register(fs)
	cli.CompleteFlag(cmd, "budget", false, audit.BudgetNames()...)
	cli.CompleteFlag(cmd, "allow", true, results.AnomalyNames()...)
	return cmd
}

// anomalyHelp lists the matrix's rows for the help, from their declaration.
func anomalyHelp() string {
	var lines []string
	for _, an := range results.Anomalies {
		lines = append(lines, "  - "+an.Title+" ("+an.Name+")")
	}
	return strings.Join(lines, "\n")
}

// measuredVerdict is the verdict of an audit that did not pass
// (audit.Verdict, clientaudit.Verdict), as the command ends with it: exit
// code 3 when it found nothing wrong but did not judge everything (a
// check that could not judge), 1 otherwise. An audit writes what it
// measured, also when a signal ended it early: its exit code stands.
type measuredVerdict struct{ error }

func (v measuredVerdict) Unwrap() []error {
	if u, ok := v.error.(interface{ Unfinished() bool }); ok && u.Unfinished() {
		return []error{v.error, cli.UnknownError{}}
	}
	return []error{v.error}
}
func (measuredVerdict) measured() {}

// measured is an audit's verdict, nil when it passed, as the command ends
// with it.
func measured(verdict error) error {
	if verdict == nil {
		return nil
	}
	return measuredVerdict{verdict}
}

// options checks the flags before anything runs, reads the baseline, and
// returns the output's format and the audit's options but those of its
// target.
func (o *auditOptions) options() (report.Format, audit.Options, error) {
	opts := audit.Options{Budget: o.budgetValue, Parallel: o.parallel, MaxErrors: o.target.maxErrors, BaselineFile: o.baseline, Version: notesbenchVersion()}
	f, err := o.format.parse(o.app)
	if err != nil {
		return "", opts, err
	}
	if !o.budgetSet {
		if opts.Budget, err = audit.LookupBudget(o.budget); err != nil {
			return "", opts, cli.UsageErr("--budget", err)
		}
	}
	if opts.Allow, err = results.ParseAllow(o.allow); err != nil {
		return "", opts, cli.UsageErr("--allow", err)
	}
	if o.target.note != "" {
		return "", opts, cli.Usagef("--note", "names one fresh Note, which serves one run: an audit makes many (use a server that creates its Notes)")
	}
	if err := o.target.checkMaxErrors(); err != nil {
		return "", opts, err
	}
	if o.out != "" {
		if err := report.CheckAuditFolder(o.out); err != nil {
			return "", opts, cli.UsageErr("--out", err)
		}
	}
	if o.baseline != "" {
		if opts.Baseline, err = results.ReadAudit(o.baseline); err != nil {
			return "", opts, cli.UsageErr("--baseline", err)
		}
	}
	return f, opts, cli.FlagError(o.target.flags, opts.Validate())
}

// write prints the audit's output in format and, with --out, writes its
// folder with folder.
func (o *auditOptions) write(format report.Format, output report.Output, folder func(dir string) error) error {
	if err := report.Write(o.app.stdout, format, o.app.width, output); err != nil {
		return err
	}
	if o.out == "" {
		return nil
	}
	return cli.WriteWhole("--out", o.out, report.AuditMD, folder)
}

func runAudit(ctx context.Context, o *auditOptions) (err error) {
	fs := o.target.flags
	if fs.Changed("client") {
		return runClientAudit(ctx, o)
	}
	if i := slices.IndexFunc(clientOnly, fs.Changed); i >= 0 {
		return cli.Usagef("--"+clientOnly[i], "audits a client: give --client too")
	}
	a := o.app
	format, opts, err := o.options()
	if err != nil {
		return err
	}
	tmp, err := a.scratch.Path()
	if err != nil {
		return err
	}
	defer cli.Closing(a.stderr, "the target", func() error { return o.target.close(a) }, &err)
	target, err := o.target.open(ctx, auditSpec(tmp), false)
	if err != nil {
		return err
	}
	opts.Reach = o.reach(target)
	opts.Reopen = func(ctx context.Context) (contract.Target, error) { return o.reopen(ctx, tmp, nil) }
	if o.target.remote() {
		for _, name := range []string{"spawn", "call-timeout", "start-timeout", "protocol", "sessions", "token-file"} {
			if fs.Changed(name) {
				opts.TargetFlags = append(opts.TargetFlags, "--"+name, fs.Lookup(name).Value.String())
			}
		}
	}
	if fs.Changed("store") {
		opts.Store = o.target.storeName
	}
	faults, nemeses := opts.Reach.Modes(o.crashTest(tmp), func(ctx context.Context, kind string, every, callTimeout time.Duration) (contract.Target, error) {
		return o.reopen(ctx, tmp, func(s *backend.Spec) {
			s.Faults, s.CallTimeout = &nemesis.Faults{Kinds: []string{kind}, Every: every}, callTimeout
		})
	})
	out, err := audit.Run(ctx, target, faults, nemeses, func(what string) func(done, total int) { return progress(a, "audit: "+what) }, opts)
	if err != nil {
		return err
	}
	// An interrupted audit writes what it measured, marked unfinished.
	if err := o.write(format, report.AuditOutput(*out), func(dir string) error { return report.WriteAuditFolder(dir, *out) }); err != nil {
		return err
	}
	return measured(audit.Verdict(out.Audit))
}

// reach is what the command knows of the audit's target beside what it
// says of itself: what it was given, how notesbench reaches it, and what
// its profile says of its server.
func (o *auditOptions) reach(target contract.Target) audit.Reach {
	spec := backend.Spec{Target: o.target.target, Spawn: o.target.faults.spawn}
	r := audit.Reach{Target: o.target.target, Profile: o.target.profile, Remote: o.target.remote(), Starts: spec.Starts(),
		StateDir: spec.StateDir(), Postgres: o.target.storeName != "", CallTimeout: o.target.faults.callTimeout}
	if p, ok := target.(interface{ Profile() *profile.Profile }); ok && p.Profile() != nil {
		prof := p.Profile()
		r.Profiled = &audit.Profiled{Server: prof.Server, Document: prof.Setup.Document}
		if w := prof.Write; w != nil {
			r.Profiled.WriteMode, r.Profiled.WriteTool = string(w.Mode()), w.Tool
		}
	}
	return r
}

// auditSpec is how the audit opens its target: conform holds a server to
// the contract's schemas clause by clause, and the runs go on whatever
// they say, as conform's do.
func auditSpec(tmp string) backend.Spec { return backend.Spec{TempDir: tmp, LenientSchemas: true} }

// reopen opens the audit's target afresh, as a part or a nemesis runs on
// it, with what adjust (nil: nothing) changes of its spec.
func (o *auditOptions) reopen(ctx context.Context, tmp string, adjust func(*backend.Spec)) (contract.Target, error) {
	s, err := o.target.spec(auditSpec(tmp))
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(&s)
	}
	return openTarget(ctx, o.target.flags, s)
}

// crashTest is the kill -9 test notesbench crash runs, for the audit's crash
// column, each run in a folder of its own under tmp.
func (o *auditOptions) crashTest(tmp string) audit.CrashTest {
	def := crash.DefaultConfig()
	run := func(ctx context.Context, s results.CrashSettings, timeout time.Duration) (audit.FaultOutcome, error) {
		dir, err := os.MkdirTemp(tmp, "audit-crash-")
		if err != nil {
			return audit.FaultOutcome{}, err
		}
		defer os.RemoveAll(dir)
		f := o.target.faults
		ran, err := crash.Command{Settings: s, Spawn: f.spawn, Dir: dir, Timeout: timeout, Env: o.childEnv, Version: notesbenchVersion(),
			Open: crashOpen(o.target.flags, o.target.profile, f.spawn, f.callTimeout, f.startTimeout)}.Run(ctx)
		if err != nil {
			return audit.FaultOutcome{}, err
		}
		return audit.CrashOutcome(ran.Argv, ran.Record, ran.Checks, ran.Verdict.Unknown, ran.History)
	}
	return audit.CrashTest{Defaults: results.CrashSettings{Seed: def.Seed, LifeMinNS: def.MinLife, LifeMaxNS: def.MaxLife}, Needs: crash.Needs, Run: run}
}
