package main

import (
	"cmp"
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/audit"
	"github.com/notesbench/notesbench/internal/crash"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
	// client holds the flags of a client audit (--client), and flags the
	// command's, to tell which the user set.
	client clientFlags
	flags  *pflag.FlagSet

	// budgetValue is the budget --budget names, set by runAudit; a test may
	// set one of its own with budgetSet.
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
		Example: examples([]string{
			"notesbench audit --target 'stdio:notesbench serve --db audit.db'",
			"notesbench audit --target 'stdio:npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp/nb' --profile filesystem --allow lost-update,stale-write",
			"notesbench audit --target embedded --budget full --out audit-report/",
			"notesbench audit --client 'node clients/drivers/js/ts-sdk-1.mjs'",
		}),
		Args: noArgs,
		RunE: runner(opts, runF, runAudit),
	}
	fs := cmd.Flags()
	opts.target.register(fs, false)
	opts.format.register(cmd, tablesOrJSON|report.ContentPage)
	fs.StringVar(&opts.out, "out", "", "also write audit.md, audit.json and audit.html into this folder (each whole or not at all)")
	fs.StringVar(&opts.allow, "allow", "", "anomalies that do not fail the audit, comma-separated: "+strings.Join(results.AnomalyNames(), ", "))
	emptyMeans(fs, "allow", "no anomaly allowed")
	fs.StringVar(&opts.baseline, "baseline", "", "an earlier audit's JSON (audit.json): exit 1 when any count is worse than its")
	fs.StringVar(&opts.budget, "budget", "quick", "how much to run: "+contract.Choice(audit.BudgetNames()))
	fs.IntVar(&opts.parallel, "parallel", 0, "runs each experiment makes at once (0: each one's default); a server that loses concurrent writes to different documents shows it at the default")
	opts.client.register(fs)
	opts.flags = fs
	completeFlag(cmd, "budget", false, audit.BudgetNames()...)
	completeFlag(cmd, "allow", true, results.AnomalyNames()...)
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

// auditFailed is an audit that found an anomaly not allowed, a part that
// ended in an error, or a count worse than the baseline's: exit code 1.
type auditFailed struct{ a results.Audit }

func (auditFailed) measured() {}

// auditUnfinished is an audit that found nothing wrong but did not judge
// every part (interrupted, or a part out of its time): exit code 3, as a
// check that could not judge everything.
type auditUnfinished struct{ a results.Audit }

func (e auditUnfinished) Error() string {
	return "audit of " + e.a.Subject.Target + " " + report.AuditVerdict(e.a)
}
func (auditUnfinished) Unwrap() error { return unknownError{} }
func (auditUnfinished) measured()     {}

func (e auditFailed) Error() string {
	msg := "audit of " + e.a.Subject.Target + " " + report.AuditVerdict(e.a)
	if len(e.a.Regressions) > 0 {
		msg += ":\n  " + strings.Join(e.a.Regressions, "\n  ")
	}
	return msg
}

// check checks the flags before anything runs, and reads the baseline.
func (o *auditOptions) check() (report.Format, *results.Audit, []string, error) {
	f, err := o.format.parse(o.app)
	if err != nil {
		return "", nil, nil, err
	}
	if !o.budgetSet {
		if o.budgetValue, err = audit.LookupBudget(o.budget); err != nil {
			return "", nil, nil, usageErr("--budget", err)
		}
	}
	allow, err := results.ParseAllow(o.allow)
	if err != nil {
		return "", nil, nil, usageErr("--allow", err)
	}
	if err := sim.ValidateParallel(o.parallel); err != nil {
		return "", nil, nil, flagError(o.target.flags, err)
	}
	if o.target.note != "" {
		return "", nil, nil, usagef("--note", "names one fresh Note, which serves one run: an audit makes many (use a server that creates its Notes)")
	}
	if err := o.target.checkMaxErrors(); err != nil {
		return "", nil, nil, err
	}
	if o.out != "" {
		if err := report.CheckAuditFolder(o.out); err != nil {
			return "", nil, nil, usageErr("--out", err)
		}
	}
	var base *results.Audit
	if o.baseline != "" {
		b, err := results.ReadFile(o.baseline)
		if err != nil {
			return "", nil, nil, usageErr("--baseline", err)
		}
		if base, err = results.ParseAudit(b, o.baseline); err != nil {
			return "", nil, nil, usageErr("--baseline", err)
		}
		if base.Budget != o.budgetValue.Name {
			return "", nil, nil, usagef("--baseline", "%s is an audit at budget %s, this one runs %s: counts of different budgets cannot be compared", o.baseline, base.Budget, o.budgetValue.Name)
		}
	}
	return f, base, allow, nil
}

func runAudit(ctx context.Context, o *auditOptions) (err error) {
	if o.flags != nil && o.flags.Changed("client") {
		return runClientAudit(ctx, o, o.flags)
	}
	if o.flags != nil {
		for _, name := range clientOnly {
			if o.flags.Changed(name) {
				return usagef("--"+name, "audits a client: give --client too")
			}
		}
	}
	a := o.app
	format, base, allow, err := o.check()
	if err != nil {
		return err
	}
	tmp, err := a.scratch.Path()
	if err != nil {
		return err
	}
	defer closing(a, "the target", func() error { return o.target.close(a) }, &err)
	target, err := o.target.open(ctx, auditSpec(tmp), false)
	if err != nil {
		return err
	}
	opts := audit.Options{
		Profile: o.target.profile, Subject: auditSubject(o, target),
		Budget: o.budgetValue, Parallel: o.parallel, MaxErrors: o.target.maxErrors,
		Allow: allow, Baseline: base, BaselineFile: o.baseline, Version: notesbenchVersion(),
	}
	if o.target.remote() {
		opts.Target, opts.TargetName = o.target.target, o.target.name()
		for _, name := range []string{"spawn", "call-timeout", "start-timeout", "protocol", "sessions", "token-file"} {
			if f := o.target.flags.Lookup(name); f != nil && f.Changed {
				opts.TargetFlags = append(opts.TargetFlags, "--"+name, f.Value.String())
			}
		}
	}
	if o.target.flags.Changed("store") {
		opts.Store = o.target.storeName
	}
	if o.namesDir() {
		// Each part a store of its own, as each command run alone has.
		opts.Reopen = func(ctx context.Context) (contract.Target, error) { return o.reopen(ctx, tmp, nil) }
	}
	out, err := audit.Run(ctx, target, o.faults(tmp), o.nemeses(tmp), func(what string) func(done, total int) { return progress(a, "audit: "+what) }, opts)
	if err != nil {
		return err
	}
	// An interrupted audit writes what it measured, marked unfinished.
	if err := report.Write(a.stdout, format, a.width, report.AuditOutput(*out)); err != nil {
		return err
	}
	if o.out != "" {
		if err := writeWhole("--out", o.out, func(dir string) error { return report.WriteAuditFolder(dir, *out) }); err != nil {
			return err
		}
	}
	if !out.Audit.Passed() {
		return auditFailed{out.Audit}
	}
	if !out.Audit.Finished() {
		return auditUnfinished{out.Audit}
	}
	return nil
}

// auditSubject is what the command knows of the target beside what it
// says of itself: the profile it was given, the server that profile was
// written for, and how a write states its change.
func auditSubject(o *auditOptions, target contract.Target) results.AuditSubject {
	s := results.AuditSubject{Target: o.target.target, Profile: o.target.profile, WriteStyle: "whole text (edit_note_tab replace_text)"}
	if p, ok := target.(interface{ Profile() *profile.Profile }); ok && p.Profile() != nil && o.target.profile != "" {
		prof := p.Profile()
		s.Server = prof.Server
		if w := prof.Write; w != nil {
			style := map[profile.WriteMode]string{profile.ModeContent: "whole text", profile.ModePatch: "patch", profile.ModeAppend: "append"}[w.Mode()]
			s.WriteStyle = cmp.Or(style, string(w.Mode())) + " (" + w.Tool + ")"
		} else {
			s.WriteStyle = "none: the profile maps no write (a read-only server)"
		}
	}
	if !o.target.remote() {
		s.Server = "notesbench " + notesbenchVersion() + " (the embedded store)"
	}
	at := "each experiment's own number of runs at once"
	if o.parallel > 0 {
		at = plural.Count(o.parallel, "run") + " of each experiment at once (--parallel)"
	}
	store := "all in the server's one store"
	if o.namesDir() {
		store = "in a store of the part's own (" + mcpclient.DirPlaceholder + " is a fresh folder for each part), shared by the part's runs"
	}
	switch {
	case !o.target.remote():
		s.Documents = "a database of its own for every run: runs share nothing"
	case o.target.profile == "":
		s.Documents = "a Note of its own for every run (notesbench_create_note), " + store + "; " + at +
			": what one run loses through another's writes to the store is the server's, and counted as such"
	default:
		doc := ""
		if p, ok := target.(interface{ Profile() *profile.Profile }); ok && p.Profile() != nil {
			doc = " named " + p.Profile().Setup.Document
		}
		s.Documents = "a document of its own for every run" + doc + ", " + store + "; " + at +
			": a server that rewrites one file for every document loses one run's writes through another's, and that is counted as the server's loss (--parallel 1 runs one at a time)"
	}
	return s
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

// namesDir says the target's server keeps its state in a folder of
// notesbench's (mcpclient.DirPlaceholder), fresh at each open.
func (o *auditOptions) namesDir() bool {
	return o.target.remote() && (strings.Contains(o.target.target, mcpclient.DirPlaceholder) || strings.Contains(o.target.faults.spawn, mcpclient.DirPlaceholder))
}

// faults are the audit's fault modes, a column each: the kill -9 test
// (notesbench crash) of what notesbench runs in processes of its own — the
// embedded SQLite store, or the server of a stdio target or of an HTTP
// target it starts (--spawn) — and the nemeses against a server
// notesbench spawned. This is the one place a fault mode is added: a mode
// that cannot run against this target says why, and its cells say "not
// run" with the reason.
func (o *auditOptions) faults(tmp string) []audit.FaultMode {
	kill := audit.FaultMode{Mode: "crash", Needs: crash.Needs}
	spec, _ := mcpclient.Parse(o.target.target)
	switch {
	case o.target.remote() && !spec.Stdio() && o.target.faults.spawn == "":
		kill.NotRun = "notesbench does not start this HTTP server, so it cannot kill it: give --spawn with the command that starts it"
	case o.target.storeName != "":
		kill.NotRun = "the kill -9 test runs the embedded SQLite store; a PostgreSQL server is not notesbench's process"
	default:
		kill.Run = func(ctx context.Context, b audit.Budget) (audit.FaultOutcome, error) {
			return o.crashFault(ctx, b, tmp)
		}
	}
	return []audit.FaultMode{kill}
}

// nemeses are the audit's nemesis columns: the race under each fault
// notesbench can make between itself and the target — on the wire
// (lose-replies, duplicate) of any server, on the process (kill, pause) of
// one it starts — each opened as --nemesis opens it. The embedded store has
// neither wire nor process of its own.
func (o *auditOptions) nemeses(tmp string) []audit.NemesisMode {
	spec, _ := mcpclient.Parse(o.target.target)
	var out []audit.NemesisMode
	// Those on the wire first: they run on any server.
	ns := nemesis.All()
	slices.SortStableFunc(ns, func(a, b nemesis.Nemesis) int { return cmp.Compare(a.Place(), b.Place()) })
	for _, n := range ns {
		kind := n.Kind()
		m := audit.NemesisMode{Kind: kind, Flags: []string{"--nemesis", kind}, Reissue: kind == history.FaultLoseReplies}
		onProcess := n.Place() == nemesis.Process
		switch {
		case !o.target.remote():
			m.NotRun = "the embedded store runs inside notesbench: no wire or process to fault (audit notesbench serve as a --target to fault it)"
		case onProcess && !spec.Stdio() && o.target.faults.spawn == "":
			m.NotRun = "notesbench does not start this HTTP server, so it cannot " + kind + " it: give --spawn with the command that starts it"
		default:
			m.Open = func(ctx context.Context, every time.Duration) (contract.Target, error) {
				return o.reopen(ctx, tmp, func(s *backend.Spec) {
					s.Faults = &mcpclient.Faults{Kinds: []string{kind}, Every: every}
					if kind == history.FaultPause && s.CallTimeout == 0 {
						s.CallTimeout = defaultPauseTimeout
					}
				})
			}
			if kind == history.FaultPause && o.target.faults.callTimeout == 0 {
				m.Flags = append(m.Flags, "--call-timeout", defaultPauseTimeout.String())
			}
		}
		out = append(out, m)
	}
	return out
}

// crashFault is the kill -9 test at budget b, as notesbench crash runs it:
// of the embedded store without --target, of the target's server with one.
func (o *auditOptions) crashFault(ctx context.Context, b audit.Budget, tmp string) (audit.FaultOutcome, error) {
	def := crash.DefaultConfig()
	settings := results.CrashSettings{Kills: b.Kills, Seed: def.Seed, LifeMinNS: def.MinLife, LifeMaxNS: def.MaxLife}
	if o.target.remote() {
		settings.Target, settings.Profile = o.target.target, o.target.profile
	} else {
		syncs, err := contract.ParseList(b.Synchronous, contract.SynchronousSettings.Parse)
		if err != nil {
			return audit.FaultOutcome{}, err
		}
		settings.Synchronous = syncs
	}
	dir, err := os.MkdirTemp(tmp, "audit-crash-")
	if err != nil {
		return audit.FaultOutcome{}, err
	}
	defer os.RemoveAll(dir)
	f := o.target.faults
	ran, err := crash.Command{Settings: settings, Spawn: f.spawn, Dir: dir, Timeout: b.CheckTimeout, Env: o.childEnv, Version: notesbenchVersion(),
		Open: crashOpen(o.target.flags, o.target.profile, f.spawn, f.callTimeout, f.startTimeout)}.Run(ctx)
	if err != nil {
		return audit.FaultOutcome{}, err
	}
	return audit.CrashOutcome(ran.Argv, ran.Record, ran.Checks, ran.Verdict.Unknown, ran.History)
}
