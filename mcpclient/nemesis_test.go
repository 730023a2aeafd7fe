package mcpclient

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/brokenserver"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/sim"
)

// Each nemesis against a server that breaks the promise it tests, and
// against notesbench serve: the nemesis finds its breakage in every run,
// and nothing wrong with notesbench serve. The experiment is create (table
// A, the key kept on a resend: row retry), whose duplicates are counted in
// the server's final state.

// brokenSpec is the stdio target of the broken server of mode on dir.
func brokenSpec(t *testing.T, dir, mode string) TargetSpec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Parse("stdio:" + quoteAll([]string{"env", "GORACE=atexit_sleep_ms=0", brokenserver.DirEnv + "=" + dir, brokenserver.ModeEnv + "=" + mode, exe, "-test.run=^$"}))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// brokenProfile is the broken server's profile.
func brokenProfile(t *testing.T) *profile.Profile {
	t.Helper()
	p, err := profile.Parse(brokenserver.Profile(), "broken.json")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// nemesisTabs is how many tabs each create run makes against a broken
// server (whose windows make every write slow), and against notesbench
// serve, which takes more writes to take as many faults: fewer under the
// race detector, whose servers are slower.
func nemesisTabs(broken bool) int {
	n := 60
	if broken {
		n = 20
	}
	if testpass.Race {
		n /= 4
	}
	return n
}

// createUnder runs create's table A once (seed 1, tabs tabs) through tg and
// returns the duplicates of the row that keeps its key on a resend, and its
// faults.
func createUnder(t *testing.T, tg *Target, tabs int) (dups, faults int) {
	t.Helper()
	cfg := create.Default()
	cfg.Seeds, cfg.Tabs, cfg.Table, cfg.Order, cfg.Drop = []uint64{1}, tabs, "a", contract.OrderKeyFirst, 0
	res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.KeyPolicy == create.KeyRetry {
			t.Logf("%s: %d calls, %d tabs, %d duplicates, %d faults, %d info", tg.Name(), r.CallsSent, r.TabsCreated, r.Duplicates, r.Faults, r.Info)
			return r.Duplicates, r.Faults
		}
	}
	t.Fatal("no run of the retry row")
	return 0, 0
}

// nemeses are the faults of the create tests and the promise each tests:
// a lost reply resent to a server started again finds its key only if the
// server kept it where every process sees it; a duplicate, or a resend
// after a pause that overlaps the original, finds it only if the server
// records it with the write's side effect.
var nemeses = []struct {
	kind, breaks string
	opts         func() Options
}{
	{history.FaultLoseReplies, brokenserver.ModeMemoryKeys, func() Options {
		return Options{Faults: &nemesis.Faults{Kinds: []string{history.FaultLoseReplies}, Every: 5 * time.Millisecond}}
	}},
	{history.FaultDuplicate, brokenserver.ModeKeyAfter, func() Options {
		return Options{Faults: &nemesis.Faults{Kinds: []string{history.FaultDuplicate}, Every: 5 * time.Millisecond}}
	}},
	{history.FaultPause, brokenserver.ModeKeyAfter, func() Options {
		return Options{CallTimeout: 150 * time.Millisecond, Faults: &nemesis.Faults{Kinds: []string{history.FaultPause}, Every: 50 * time.Millisecond, Pause: 300 * time.Millisecond}}
	}},
}

// skipShort skips a test of many faults under -short.
func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs experiments through many faults")
	}
}

func TestNemesesFindTheirBreakage(t *testing.T) {
	skipShort(t)
	t.Parallel() // waits on the servers it breaks, most of its time
	for _, n := range nemeses {
		t.Run(n.kind, func(t *testing.T) {
			opts := n.opts()
			opts.Profile = brokenProfile(t)
			dups, faults := createUnder(t, dialT(t, brokenSpec(t, t.TempDir(), n.breaks), opts), nemesisTabs(true))
			if faults == 0 || dups == 0 {
				t.Errorf("%s against a server that breaks it (%s): %d duplicates in %d faults, want some", n.kind, n.breaks, dups, faults)
			}
		})
	}
}

func TestNemesesFindNothingWrongWithServe(t *testing.T) {
	skipShort(t)
	for _, n := range nemeses {
		t.Run(n.kind, func(t *testing.T) {
			dups, faults := createUnder(t, dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")), n.opts()), nemesisTabs(false))
			if faults == 0 || dups != 0 {
				t.Errorf("%s against notesbench serve: %d duplicates in %d faults, want none in some", n.kind, dups, faults)
			}
		})
	}
}

// The same on PostgreSQL: notesbench serve over HTTP on a schema of its
// own, started by the Target (a pause needs the process), faulted through
// the proxy and the process.
func TestNemesesFindNothingWrongWithServeOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own: make test-large runs it (the nemeses against serve on SQLite run under the race detector)")
	}
	testpass.Large(t, "starts a PostgreSQL cluster of its own")
	t.Parallel()
	cluster := pgtest.NewCluster(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Parse("http://127.0.0.1:{port}/mcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nemeses {
		t.Run(n.kind, func(t *testing.T) {
			opts := n.opts()
			opts.Spawn = []string{"env", "GORACE=atexit_sleep_ms=0", pgEnv + "=" + cluster.URL, httpHelperEnv + "=1", addrEnv + "=127.0.0.1:{port}", exe, "-test.run=^$"}
			dups, faults := createUnder(t, dialT(t, spec, opts), nemesisTabs(false))
			if faults == 0 || dups != 0 {
				t.Errorf("%s against notesbench serve on PostgreSQL: %d duplicates in %d faults, want none in some", n.kind, dups, faults)
			}
		})
	}
}

// The race under kills and pauses of notesbench serve: the runs go to the
// end with the cut calls counted as info, and note/reapply loses no
// acknowledged line.
func TestRaceUnderKillAndPause(t *testing.T) {
	skipShort(t)
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")),
		Options{CallTimeout: 200 * time.Millisecond, Faults: &nemesis.Faults{Kinds: []string{history.FaultKill, history.FaultPause}, Every: 100 * time.Millisecond}})
	cfg := race.Default()
	cfg.Seeds, cfg.Modes, cfg.Edits = []uint64{1}, []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}, 30
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 5 * time.Millisecond}, sim.Dist{Max: 5 * time.Millisecond}, "0"
	w := history.NewWriter(history.Header{Experiment: "race"})
	res, err := cfg.Run(ctx, sim.Runtime{Target: tg, History: w}, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	t.Logf("%d faults, info %d / %d, errors %d / %d, lost %d, acknowledged %d of %d", r.Faults, r.Claude.Info, r.Human.Info,
		r.Claude.Errors, r.Human.Errors, r.Lost(), r.Intended()-r.Claude.Errors-r.Human.Errors, r.Intended())
	if r.Faults == 0 || r.Claude.Info+r.Human.Info == 0 || r.Lost() != 0 || r.Stopped != "" {
		t.Errorf("under kills and pauses: %+v", r)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := history.Read(ctx, &buf, "race history")
	if err != nil {
		t.Fatal(err)
	}
	faults := 0
	for _, run := range h.Runs {
		faults += len(run.Faults)
	}
	if faults != r.Faults {
		t.Errorf("the history holds %d faults, the run counted %d", faults, r.Faults)
	}
}

// A write sent twice at once by the duplicate nemesis, whose own request
// lost to its twin (the twin took the version first, and the original got
// a conflict), is not a refusal: it may have been applied, through the
// twin. Recorded as failed, check found a linearizability violation in a
// server that behaved. The race under frequent duplicates against
// notesbench serve: every check clean, and the writes refused beside a
// twin recorded as info of kind twin_sent.
func TestDuplicateTwinIsNoRefusal(t *testing.T) {
	skipShort(t)
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")),
		Options{Faults: &nemesis.Faults{Kinds: []string{history.FaultDuplicate}, Every: 2 * time.Millisecond}})
	cfg := race.Default()
	cfg.Seeds, cfg.Edits = []uint64{1, 2, 3}, testpass.Sized(10, 30)
	cfg.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}
	w := history.NewWriter(history.Header{Experiment: "race"})
	if _, err := cfg.Run(ctx, sim.Runtime{Target: tg, History: w}, cfg.Seeds); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := history.Read(ctx, &buf, "race.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := check.Run(ctx, []*history.History{h}, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, u := rep.Failed(); len(v) > 0 || len(u) > 0 {
		for _, c := range rep.Checks {
			t.Logf("%s: %s %v", c.Check, c.Verdict, c.First)
		}
		t.Errorf("violated %v, unknown %v against notesbench serve under duplicates", v, u)
	}
	faults, twins := 0, 0
	for _, r := range h.Runs {
		faults += len(r.Faults)
		for _, c := range r.Calls {
			if c.ErrorKind == contract.KindTwinSent {
				twins++
			}
		}
	}
	t.Logf("%d duplicates, %d writes refused beside a twin", faults, twins)
	if faults == 0 {
		t.Error("no duplicate made")
	}
}
