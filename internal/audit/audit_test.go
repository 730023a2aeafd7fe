package audit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// testBudget is a budget small enough for a unit test: one race seed of
// a few fast edits, a few tabs and one session of sources.
var testBudget = Budget{
	Name: "test",
	Race: raceChange{Given: []string{"seeds", "edits", "claude-think", "human-think"}, Set: func(c *race.Config) {
		c.Seeds, c.Edits = []uint64{1}, 12
		c.ClaudeThink, c.HumanThink = sim.Dist{Min: time.Millisecond, Max: 6 * time.Millisecond}, sim.Dist{Min: time.Millisecond, Max: 4 * time.Millisecond}
	}},
	Create:       createChange{Given: []string{"seeds", "tabs"}, Set: func(c *create.Config) { c.Seeds, c.Tabs = []uint64{1}, 8 }},
	Sources:      sourcesChange{Given: []string{"seeds", "sessions"}, Set: func(c *sources.Config) { c.Seeds, c.Sessions = []uint64{1}, 2 }},
	Kills:        1,
	Synchronous:  []contract.Synchronous{contract.SyncNormal},
	CheckTimeout: time.Minute,
	FastTime:     time.Second,
}

// uncheckedTarget is a server that says it checks the version on the Note
// and checks none: the embedded store under guard none, as served.
type uncheckedTarget struct{ contract.Target }

func (uncheckedTarget) Served() (contract.Variant, bool) {
	return contract.Variant{}.WithDefaults(), true
}

func (u uncheckedTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	run.Variant = contract.Variant{Guard: contract.GuardNone}.WithDefaults()
	return u.Target.Open(ctx, run)
}

// Every budget configures its experiments, and the quick one writes the
// command lines the committed audits list: the budget's flags, then the
// variant's where the server does not say it, --parallel, and the nemesis
// race's modes and reissue.
func TestBudgetCommands(t *testing.T) {
	served := &auditRun{cfg: Options{Parallel: 1}, target: uncheckedTarget{}, known: true, variant: contract.Variant{Guard: contract.GuardNone}.WithDefaults()}
	unserved := &auditRun{target: backend.Memory(), known: true, variant: contract.Variant{}.WithDefaults()}
	for _, b := range Budgets {
		var got []string
		for _, a := range []*auditRun{served, unserved} {
			a.cfg.Budget = b
			modes := raceModes(a.variant)
			var xs [4]experiment.Configured
			var errs [4]error
			xs[0], errs[0] = a.raceSetup(modes)
			xs[1], errs[1] = a.createSetup()
			xs[2], errs[2] = a.sourcesSetup()
			xs[3], errs[3] = a.nemesisSetup(modes[0], true)
			if err := errors.Join(errs[:]...); err != nil {
				t.Fatalf("budget %s: %v", b.Name, err)
			}
			for _, x := range xs {
				got = append(got, strings.Join(x.Flags(), " "))
			}
			got = append(got, a.replayOf(xs[0], 3, "note/refresh"), a.replayOf(xs[1], 2, ""), a.replayOf(xs[3], 1, modes[0].String()))
		}
		if b.Name != "quick" {
			continue
		}
		want := []string{
			"--seeds 1-5 --parallel 1",
			"--seeds 1-3 --parallel 1",
			"--seeds 1-3 --sessions 20 --parallel 1",
			"--seeds 1-2 --edits 50 --parallel 1 --modes none --reissue true",
			"notesbench race --seeds 3 --modes note/refresh --replications 0 --history race-seed3.jsonl",
			"notesbench create --seeds 2 --replications 0 --history create-seed2.jsonl",
			"notesbench race --edits 50 --reissue true --seeds 1 --modes none --replications 0 --history race-seed1.jsonl",
			"--seeds 1-5 --modes note/reapply,note/refresh",
			"--seeds 1-3 --order key-first",
			"--seeds 1-3 --sessions 20",
			"--seeds 1-2 --edits 50 --modes note/reapply --reissue true",
			"notesbench race --seeds 3 --modes note/refresh --replications 0 --history race-seed3.jsonl",
			"notesbench create --order key-first --seeds 2 --replications 0 --history create-seed2.jsonl",
			"notesbench race --edits 50 --reissue true --seeds 1 --modes note/reapply --replications 0 --history race-seed1.jsonl",
		}
		if !slices.Equal(got, want) {
			t.Errorf("quick's command lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// cellOf returns the cell of mode in the row of anomaly.
func cellOf(t *testing.T, a results.Audit, anomaly, mode string) results.AuditCell {
	t.Helper()
	row, ok := a.Row(anomaly)
	if !ok {
		t.Fatalf("no row %s", anomaly)
	}
	c, ok := row.Cell(mode)
	if !ok {
		t.Fatalf("row %s has no cell %s: %+v", anomaly, mode, row.Cells)
	}
	return c
}

// count returns a cell's count, failing when it has none.
func count(t *testing.T, c results.AuditCell) int {
	t.Helper()
	if c.Count == nil {
		t.Fatalf("cell %s not run: %s", c.Mode, c.NotRun)
	}
	return *c.Count
}

// The embedded store, audited: every row is there, every server anomaly is
// 0 where it was looked for, the fault mode that ran fills its rows and
// the one that did not says why; the client policy's losses stand apart.
func TestAuditEmbedded(t *testing.T) {
	target := backend.Memory()
	defer target.Close()
	lost := 0
	faults := []FaultMode{
		{Mode: "kill", Run: func(ctx context.Context, b Budget) (FaultOutcome, error) {
			if b.Name != "test" {
				t.Errorf("the fault got budget %q", b.Name)
			}
			return FaultOutcome{LostAcknowledged: &lost, Runs: 2, Part: results.AuditPart{Command: []string{"notesbench", "kill"}}}, nil
		}},
		{Mode: "nemesis", NotRun: "not in this build"},
	}
	opts := Options{Budget: testBudget, Version: "test"}
	out, err := Run(context.Background(), target, faults, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	wantModes := []string{"race note/reapply", "race note/refresh", "conform", "create a", "create b", "sources", "kill", "nemesis"}
	if !slices.Equal(a.Modes, wantModes) {
		t.Errorf("modes %q, want %q", a.Modes, wantModes)
	}
	if len(a.Matrix) != len(results.Anomalies) {
		t.Fatalf("%d rows, want one per anomaly", len(a.Matrix))
	}
	for _, r := range a.Matrix {
		if r.Anomaly == results.AnomalyDeclaredNotKept {
			// The embedded store declares no hints: nothing to hold it to
			// (TestDeclaredButNotKept judges the row).
			if r.Mark != results.MarkNotRun {
				t.Errorf("row %s: mark %s, want not run: %+v", r.Anomaly, r.Mark, r.Cells)
			}
			continue
		}
		want := results.MarkOK
		if r.Mark != want || r.Found() || len(r.Totals) == 0 {
			t.Errorf("row %s: mark %s, totals %v: %+v", r.Anomaly, r.Mark, r.Totals, r.Cells)
		}
	}
	if c := cellOf(t, a, results.AnomalyLostUpdate, "race note/reapply"); count(t, c) != 0 || c.Of != 2*12 {
		t.Errorf("lost update cell %+v", c)
	}
	for _, an := range []string{results.AnomalyStaleWrite, results.AnomalyUnversionedWrite} {
		if c := cellOf(t, a, an, "conform"); count(t, c) != 0 || c.Of != 1 {
			t.Errorf("%s, conform: %+v", an, c)
		}
	}
	if c := cellOf(t, a, results.AnomalyStaleWrite, "race note/reapply"); count(t, c) != 0 {
		t.Errorf("stale overwrites under reapply: %+v", c)
	}
	for _, mode := range []string{"create a", "create b", "sources"} {
		count(t, cellOf(t, a, results.AnomalyDuplicate, mode))
	}
	if c := cellOf(t, a, results.AnomalyLostAcknowledged, "kill"); count(t, c) != 0 {
		t.Errorf("kill: %+v", c)
	}
	if c := cellOf(t, a, results.AnomalyUnreadable, "nemesis"); c.Count != nil || c.NotRun != "not in this build" {
		t.Errorf("a fault mode not run: %+v", c)
	}
	if !a.Passed() || len(a.Failed) != 0 || len(a.Errors) != 0 {
		t.Errorf("the audit failed: %v %v", a.Failed, a.Errors)
	}
	// refresh's losses are the client's: a cost, never a cell.
	if _, ok := cellOf(t, a, results.AnomalyServerErrors, "race note/refresh"), true; !ok {
		t.Error("no server errors cell for refresh")
	}
	row, _ := a.Row(results.AnomalyLostUpdate)
	if _, ok := row.Cell("race note/refresh"); ok {
		t.Error("refresh's losses are a cell of the lost-update row")
	}
	i := slices.IndexFunc(a.ClientCosts, func(c results.ClientCost) bool { return c.Mode == "race note/refresh" })
	if i < 0 || a.ClientCosts[i].Of != 24 {
		t.Errorf("client costs %+v", a.ClientCosts)
	}
	var names []string
	for _, p := range a.Parts {
		names = append(names, p.Name)
		if p.Error != "" {
			t.Errorf("part %s: %s", p.Name, p.Error)
		}
	}
	if want := []string{"race", "check", "conform", "create", "sources", "kill", "nemesis"}; !slices.Equal(names, want) {
		t.Errorf("parts %q, want %q", names, want)
	}
	if got := strings.Join(a.Parts[0].Command, " "); got != "notesbench race --seeds 1 --edits 12 --claude-think 1ms-6ms --human-think 1ms-4ms --modes note/reapply,note/refresh --replications 0 --history histories/race.jsonl" {
		t.Errorf("race command %q", got)
	}
	if len(out.Tables) != len(a.Parts) || len(out.Tables[0]) == 0 {
		t.Errorf("tables of the parts: %d for %d parts", len(out.Tables), len(a.Parts))
	}
	if out.Timeline != nil {
		t.Error("a timeline of a history without a violation")
	}
	// The server's plots first, the client's cost after them.
	var plots []string
	for _, p := range a.Plots {
		plots = append(plots, p.Name)
	}
	if want := []string{"race-lost", "create-duplicates", "sources-duplicates", "race-client-cost"}; !slices.Equal(plots, want) {
		t.Errorf("plots %q, want %q", plots, want)
	}
}

// A server that says it checks the version and does not: lost updates and
// stale writes under re-applying, the stale-version clause failed, the
// checker's timeline of the violation kept; failed unless allowed, and a
// baseline with lower counts names each count that got worse.
func TestAuditUncheckedServer(t *testing.T) {
	target := uncheckedTarget{backend.Memory()}
	defer target.Close()
	opts := Options{Budget: testBudget, Reach: Reach{Target: "unchecked", Remote: true}}
	out, err := Run(context.Background(), target, nil, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	if c := cellOf(t, a, results.AnomalyLostUpdate, "race note/reapply"); count(t, c) == 0 {
		t.Errorf("no line lost without a version check: %+v", c)
	}
	if c := cellOf(t, a, results.AnomalyStaleWrite, "conform"); count(t, c) != 1 {
		t.Errorf("the stale-version clause: %+v", c)
	}
	if c := cellOf(t, a, results.AnomalyStaleWrite, "race note/reapply"); count(t, c) == 0 {
		t.Errorf("no stale overwrite found: %+v", c)
	}
	// Each count is shown by the operations of one run of a kept history,
	// and a command that replays that run.
	for _, an := range []string{results.AnomalyLostUpdate, results.AnomalyStaleWrite} {
		p := cellOf(t, a, an, "race note/reapply").Proof
		if p == nil || len(p.Ops) < 2 || p.History != "histories/race.jsonl" || p.Says == "" ||
			!strings.Contains(p.Replay, "notesbench race --target unchecked") || !strings.Contains(p.Replay, fmt.Sprintf("--seeds %d --modes note/reapply", p.Seed)) {
			t.Errorf("%s: proof %+v", an, p)
			continue
		}
		if _, ok := out.Histories[p.History]; !ok {
			t.Errorf("%s: the proof names %s, which the audit does not keep (it keeps %v)", an, p.History, slices.Collect(maps.Keys(out.Histories)))
		}
	}
	if p := cellOf(t, a, results.AnomalyLostUpdate, "race note/reapply").Proof; p != nil && !strings.Contains(p.Says, "replaced the text with one built on a version before it") {
		t.Errorf("the lost update's proof names no write that removed the line: %s", p.Says)
	}
	if !slices.Contains(a.Failed, results.AnomalyLostUpdate) || !slices.Contains(a.Failed, results.AnomalyStaleWrite) || a.Passed() {
		t.Errorf("failed %v", a.Failed)
	}
	if out.Timeline == nil || !strings.Contains(string(out.Timeline), "<html") {
		t.Error("no timeline of the linearizability violation")
	}
	for _, r := range a.Matrix {
		if r.Anomaly == results.AnomalyLostAcknowledged && r.Mark != results.MarkNotRun {
			t.Errorf("with no fault mode, %s is %s", r.Anomaly, r.Mark)
		}
	}

	opts.Allow = []string{results.AnomalyLostUpdate, results.AnomalyStaleWrite}
	base := a
	base.Matrix = slices.Clone(a.Matrix)
	for i, r := range base.Matrix {
		if r.Anomaly == results.AnomalyLostUpdate {
			cells := slices.Clone(r.Cells)
			zero := 0
			cells[0].Count = &zero
			base.Matrix[i].Cells = cells
		}
	}
	opts.Baseline, opts.BaselineFile = &base, "base.json"
	out, err = Run(context.Background(), target, nil, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	a = out.Audit
	if len(a.Failed) != 0 {
		t.Errorf("allowed anomalies failed: %v", a.Failed)
	}
	if row, _ := a.Row(results.AnomalyLostUpdate); row.Mark != results.MarkAllowed {
		t.Errorf("lost update marked %s", row.Mark)
	}
	if len(a.Regressions) != 1 || !strings.HasPrefix(a.Regressions[0], "lost update, race note/reapply: baseline 0, now ") || a.Passed() {
		t.Errorf("regressions %q", a.Regressions)
	}
}

// A target that maps no create and no sources: their cells say not run and
// why, never 0; and a race that cannot open a run is recorded as an error
// of its part, failing the audit, while the rest runs.
func TestAuditNotRun(t *testing.T) {
	target := lacking{backend.Memory()}
	defer target.Close()
	out, err := Run(context.Background(), target, nil, nil, nil, Options{Budget: testBudget})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	for _, mode := range []string{"create a", "create b", "sources"} {
		c := cellOf(t, a, results.AnomalyDuplicate, mode)
		if c.Count != nil || !strings.Contains(c.NotRun, "lacks") {
			t.Errorf("%s: %+v", mode, c)
		}
	}
	if row, _ := a.Row(results.AnomalyDuplicate); row.Mark != results.MarkNotRun || len(row.Totals) != 0 {
		t.Errorf("duplicates: %+v", row)
	}
	if !a.Passed() {
		t.Errorf("failed: %v %v", a.Failed, a.Errors)
	}

	broken := failingOpen{backend.Memory()}
	out, err = Run(context.Background(), broken, nil, nil, nil, Options{Budget: testBudget})
	if err != nil {
		t.Fatal(err)
	}
	a = out.Audit
	if len(a.Errors) == 0 || !strings.HasPrefix(a.Errors[0], "race: the set-up of every run failed") || !strings.Contains(a.Errors[0], "no room for another run") || a.Passed() {
		t.Errorf("errors %q", a.Errors)
	}
	if c := cellOf(t, a, results.AnomalyLostUpdate, "race note/reapply"); c.Count != nil || !strings.Contains(c.NotRun, "race ended in an error") {
		t.Errorf("lost update of a race that did not run: %+v", c)
	}
}

// lacking is a target without the capabilities of create and sources.
type lacking struct{ contract.Target }

func (lacking) Require(why string, caps ...contract.Capability) error {
	for _, c := range caps {
		if c != contract.CapRead && c != contract.CapWrite {
			return errors.New("the server lacks " + string(c) + ", which " + why + " needs")
		}
	}
	return nil
}

// readOnly is a target without the capability to write.
type readOnly struct{ contract.Target }

func (readOnly) Require(why string, caps ...contract.Capability) error {
	for _, c := range caps {
		if c != contract.CapRead {
			return errors.New("the server lacks " + string(c) + ", which " + why + " needs")
		}
	}
	return nil
}

// A read-only server is audited for what it has: a fault mode that writes
// (the kill -9 test) does not run and says why, never an error of its
// part, and the audit is not failed for lacking a write.
func TestAuditReadOnly(t *testing.T) {
	target := readOnly{backend.Memory()}
	defer target.Close()
	ran := false
	kill := FaultMode{Mode: "crash", Needs: []contract.Capability{contract.CapRead, contract.CapWrite}, Run: func(context.Context, Budget) (FaultOutcome, error) {
		ran = true
		return FaultOutcome{}, errors.New("a write through a target that has none")
	}}
	out, err := Run(context.Background(), target, []FaultMode{kill}, nil, nil, Options{Budget: testBudget})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	if ran || !a.Passed() || len(a.Errors) > 0 {
		t.Errorf("ran %v, failed %v, errors %q", ran, a.Failed, a.Errors)
	}
	if c := cellOf(t, a, results.AnomalyLostAcknowledged, "crash"); c.Count != nil || c.NotRun != "the server lacks write, which crash needs" {
		t.Errorf("crash: %+v", c)
	}
	if c := cellOf(t, a, results.AnomalyLostUpdate, "race note/reapply"); c.Count != nil || !strings.Contains(c.NotRun, "lacks write") {
		t.Errorf("race: %+v", c)
	}
}

// failingOpen is a target whose race runs cannot open.
type failingOpen struct{ contract.Target }

func (f failingOpen) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	if strings.HasPrefix(run.Name, "race") {
		return nil, errors.New("no room for another run")
	}
	return f.Target.Open(ctx, run)
}

// A part that runs out of its time is not judged, and says so: its cells
// are not run with why, the audit is unfinished but not failed, and the
// parts after it still run.
func TestPartRunsOutOfItsTime(t *testing.T) {
	target := backend.Memory()
	defer target.Close()
	b := testBudget
	b.PartTime = 200 * time.Millisecond
	hangs := FaultMode{Mode: "hangs", Run: func(ctx context.Context, _ Budget) (FaultOutcome, error) {
		<-ctx.Done() // a server that never answers: only the part's bound ends it
		return FaultOutcome{}, ctx.Err()
	}}
	ran := false
	after := FaultMode{Mode: "after", Run: func(context.Context, Budget) (FaultOutcome, error) {
		ran = true
		n := 0
		return FaultOutcome{LostAcknowledged: &n}, nil
	}}
	out, err := Run(context.Background(), lacking{target}, []FaultMode{hangs, after}, nil, nil, Options{Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	want := "hangs: not judged: it ran out of its 200ms (budget test)"
	if !slices.Contains(a.Unfinished, want) || a.Finished() {
		t.Errorf("unfinished %q, want %q among them", a.Unfinished, want)
	}
	if c := cellOf(t, a, results.AnomalyLostAcknowledged, "hangs"); c.Count != nil || c.NotRun != "not judged: it ran out of its 200ms (budget test)" {
		t.Errorf("the cell of the part that ran out: %+v", c)
	}
	if !ran {
		t.Error("the part after the one that ran out did not run")
	}
}

// Interrupted, the audit returns what the parts before measured, and the
// part under way and those after it are not judged.
func TestInterruptedAuditKeepsWhatItMeasured(t *testing.T) {
	target := backend.Memory()
	defer target.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := FaultMode{Mode: "first", Run: func(context.Context, Budget) (FaultOutcome, error) {
		n := 2
		return FaultOutcome{LostAcknowledged: &n, Runs: 1}, nil
	}}
	signal := FaultMode{Mode: "signal", Run: func(ctx context.Context, _ Budget) (FaultOutcome, error) {
		cancel() // Ctrl-C, while this part runs
		<-ctx.Done()
		return FaultOutcome{}, ctx.Err()
	}}
	never := FaultMode{Mode: "never", Run: func(context.Context, Budget) (FaultOutcome, error) {
		t.Error("a part ran after the interruption")
		return FaultOutcome{}, nil
	}}
	out, err := Run(ctx, lacking{target}, []FaultMode{first, signal, never}, nil, nil, Options{Budget: testBudget})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	if c := cellOf(t, a, results.AnomalyLostAcknowledged, "first"); c.Count == nil || *c.Count != 2 {
		t.Errorf("the part before the interruption: %+v", c)
	}
	for _, mode := range []string{"signal", "never"} {
		if c := cellOf(t, a, results.AnomalyLostAcknowledged, mode); c.Count != nil || !strings.Contains(c.NotRun, "the audit was interrupted") {
			t.Errorf("%s: %+v", mode, c)
		}
	}
	if len(a.Unfinished) != 2 || a.Passed() {
		t.Errorf("unfinished %q; passed %v (the first part lost 2 writes)", a.Unfinished, a.Passed())
	}
}

// The faults that kill the server run last, the kill nemesis before the
// kill -9 test: a server a kill leaves unable to start again is still
// judged under every other fault. The columns are in the order they ran.
func TestKillsRunLast(t *testing.T) {
	target := backend.Memory()
	defer target.Close()
	var ran []string
	var nemeses []NemesisMode
	for _, kind := range []string{history.FaultLoseReplies, history.FaultKill, history.FaultPause} {
		nemeses = append(nemeses, NemesisMode{Kind: kind, Open: func(context.Context, time.Duration) (contract.Target, error) {
			ran = append(ran, kind)
			return nil, errors.New("no " + kind + " here")
		}})
	}
	kill := FaultMode{Mode: "crash", Run: func(context.Context, Budget) (FaultOutcome, error) {
		ran = append(ran, "crash")
		return FaultOutcome{}, errors.New("no kill -9 here")
	}}
	out, err := Run(context.Background(), target, []FaultMode{kill}, nemeses, nil, Options{Budget: testBudget})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{history.FaultLoseReplies, history.FaultPause, history.FaultKill, "crash"}; !slices.Equal(ran, want) {
		t.Errorf("ran %q, want %q", ran, want)
	}
	if cols := out.Audit.Modes; len(cols) < 4 || !slices.Equal(cols[len(cols)-4:], []string{"nemesis lose-replies", "nemesis pause", "nemesis kill", "crash"}) {
		t.Errorf("columns %q", cols)
	}
}

// destroying is a target whose store a race destroys: once a race's run
// closes, every run it opens fails in the server's words, as two writers
// left a knowledge graph's JSON file.
type destroying struct {
	contract.Target
	destroyed *atomic.Bool
	closed    *atomic.Int32
}

func (d destroying) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	if d.destroyed.Load() {
		return nil, errors.New("Unexpected non-whitespace character after JSON at position 584")
	}
	b, err := d.Target.Open(ctx, run)
	if err != nil || !strings.HasPrefix(run.Name, "race") {
		return b, err
	}
	return destroyedOnClose{b, d.destroyed}, nil
}

func (d destroying) Close() error {
	d.closed.Add(1)
	return d.Target.Close()
}

type destroyedOnClose struct {
	contract.Backend
	destroyed *atomic.Bool
}

func (b destroyedOnClose) Close() error {
	b.destroyed.Store(true)
	return b.Backend.Close()
}

// With Reopen, on a target that keeps its state in a folder of its own
// (Reach.StateDir), each part runs on a target opened for it alone and
// closed after: a store the race destroyed leaves conform, create and
// sources measured, where on the one target (no state folder: Reopen is
// not called) they end in the server's error.
func TestEachPartOpensItsOwnTarget(t *testing.T) {
	fresh := func() destroying {
		return destroying{Target: backend.Memory(), destroyed: &atomic.Bool{}, closed: &atomic.Int32{}}
	}
	shared := fresh()
	defer shared.Close()
	unused := func(context.Context) (contract.Target, error) {
		t.Error("reopened a target that names no state folder")
		return fresh(), nil
	}
	out, err := Run(context.Background(), shared, nil, nil, nil, Options{Budget: testBudget, Reopen: unused})
	if err != nil {
		t.Fatal(err)
	}
	if c := cellOf(t, out.Audit, results.AnomalyStaleWrite, modeConform); c.Count != nil || !strings.Contains(c.NotRun, "position 584") {
		t.Fatalf("conform on the store the race destroyed: %+v", c)
	}

	var opened []destroying
	opts := Options{Budget: testBudget, Reach: Reach{StateDir: "{dir}"}, Reopen: func(context.Context) (contract.Target, error) {
		d := fresh()
		opened = append(opened, d)
		return d, nil
	}}
	given := fresh()
	defer given.Close()
	out, err = Run(context.Background(), given, nil, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	if c := cellOf(t, a, results.AnomalyStaleWrite, modeConform); count(t, c) != 0 {
		t.Errorf("conform on a store of its own: %+v", c)
	}
	if c := cellOf(t, a, results.AnomalyDuplicate, modeSources); count(t, c) != 0 {
		t.Errorf("sources on a store of its own: %+v", c)
	}
	if len(opened) != 4 {
		t.Fatalf("%d targets opened, want one for each of race, conform, create and sources", len(opened))
	}
	for i, d := range opened {
		if n := d.closed.Load(); n != 1 {
			t.Errorf("target %d closed %d times, want once", i+1, n)
		}
	}
	if given.destroyed.Load() {
		t.Error("a part ran on the target Run was given")
	}
}

// A hint the server declares of its write tool is held to what the parts
// counted: lines applied twice under a fault that repeats calls contradict
// idempotentHint (with the applied-twice proof, saying the hint), lines a
// race kept contradict readOnlyHint; a hint not declared is "not run" in
// the columns that would judge it, never 0.
func TestDeclaredButNotKept(t *testing.T) {
	twice, lost := 3, 4
	cells := func() map[string][]results.AuditCell {
		dup := results.Counted("nemesis duplicate", "", UnitLines, twice, 0)
		dup.Proof = &results.AuditProof{CheckProof: results.CheckProof{Says: "line 7 is in the final text twice"}, Replay: "notesbench race --seeds 2"}
		return map[string][]results.AuditCell{
			results.AnomalyAppliedTwice: {results.Counted("race none", "", UnitLines, 5, 0), dup, results.NotRunCell("nemesis kill", "", "no process")},
			results.AnomalyLostUpdate:   {results.Counted("race none", "", UnitLines, lost, 10)},
		}
	}
	judged := func(m contract.Mapping) []results.AuditCell {
		a := &auditRun{cells: cells(), mapping: m}
		a.declaredNotKept()
		return a.cells[results.AnomalyDeclaredNotKept]
	}
	mapping := func(h contract.ToolHints) contract.Mapping {
		return contract.Mapping{Profile: "p", ServerTools: map[string]string{"edit_note_tab": "put"}, Hints: map[string]contract.ToolHints{"put": h}}
	}

	got := judged(mapping(contract.ToolHints{Idempotent: true}))
	if len(got) != 1 || got[0].Mode != "nemesis duplicate" || got[0].Count == nil || *got[0].Count != twice || got[0].Unit != UnitLines {
		t.Fatalf("idempotentHint: cells %+v, want the duplicate column's 3 lines alone", got)
	}
	if p := got[0].Proof; p == nil || !strings.HasPrefix(p.Says, "put declares idempotentHint: true") || !strings.HasSuffix(p.Says, "line 7 is in the final text twice") || p.Replay == "" {
		t.Errorf("proof %+v", got[0].Proof)
	}

	got = judged(mapping(contract.ToolHints{ReadOnly: true}))
	if len(got) != 2 || got[0].Count != nil || !strings.Contains(got[0].NotRun, "put does not declare idempotentHint") {
		t.Fatalf("readOnlyHint alone: cells %+v", got)
	}
	if c := got[1]; c.Mode != "race none" || c.Count == nil || *c.Count != 10-lost || c.Of != 10 || c.Proof == nil || !strings.Contains(c.Proof.Says, "6 of the 10 lines") {
		t.Errorf("readOnlyHint: race cell %+v", c)
	}

	if got := judged(contract.Mapping{Profile: "p", ServerTools: map[string]string{"edit_note_tab": "put"}}); len(got) != 1 || got[0].Count != nil {
		t.Errorf("nothing declared: cells %+v, want one not run", got)
	}
	if got := judged(contract.Mapping{Profile: "p"}); len(got) != 0 {
		t.Errorf("a read-only server: cells %+v, want none", got)
	}
}

// slowTarget is a server that takes 10 ms over every write, as one does
// that a fault leaves coming back from a kill again and again.
type slowTarget struct{ contract.Target }

func (s slowTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := s.Target.Open(ctx, run)
	return slowBackend{b}, err
}

type slowBackend struct{ contract.Backend }

func (b slowBackend) Session(ctx context.Context) (contract.Session, error) {
	s, err := b.Backend.Session(ctx)
	return slowSession{s}, err
}

type slowSession struct{ contract.Session }

func (s slowSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	time.Sleep(10 * time.Millisecond)
	return s.Session.EditNoteTab(ctx, req)
}

// A race under a nemesis that slows the server past its part's time is
// judged on the edits made by half that time: the column has its counts,
// and says where its runs stopped, instead of "not judged".
func TestNemesisStopsAtItsTimeLimit(t *testing.T) {
	target := backend.Memory()
	defer target.Close()
	b := testBudget
	b.PartTime = 2 * time.Second
	b.Nemesis = raceChange{Given: []string{"seeds", "edits"}, Set: func(c *race.Config) { c.Seeds, c.Edits = []uint64{1}, 300 }} // 3 s of writes at the least
	slow := NemesisMode{Kind: history.FaultKill, Open: func(context.Context, time.Duration) (contract.Target, error) {
		return slowTarget{backend.Memory()}, nil
	}}
	out, err := Run(context.Background(), target, nil, []NemesisMode{slow}, nil, Options{Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Audit
	if len(a.Unfinished) != 0 {
		t.Errorf("unfinished: %q", a.Unfinished)
	}
	c := cellOf(t, a, results.AnomalyLostUpdate, "nemesis kill")
	if c.Count == nil || *c.Count != 0 || c.Of == 0 || c.Of >= 600 || !strings.Contains(c.Note, "stopped at its time limit after ") {
		t.Errorf("the slowed nemesis's cell: %+v", c)
	}
}
