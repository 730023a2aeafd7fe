package crash

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/brokenserver"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/store"
	"go.uber.org/goleak"
)

// The test binary is also the server: started with serveDBEnv, it serves
// that database as notesbench serve does (over stdio, or over HTTP on the
// address serveHTTPEnv names); started with brokenserver.DirEnv, it is the
// broken server.
const (
	serveDBEnv   = "NOTESBENCH_CRASH_SERVE_DB"
	serveSyncEnv = "NOTESBENCH_CRASH_SERVE_SYNC"
	serveHTTPEnv = "NOTESBENCH_CRASH_SERVE_HTTP"
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(serveDBEnv) != "":
		os.Exit(serveStore())
	case os.Getenv(brokenserver.DirEnv) != "":
		os.Exit(brokenserver.Main())
	}
	goleak.VerifyTestMain(m)
}

// serveStore serves the store of serveDBEnv as notesbench serve does.
func serveStore() int {
	st, err := store.Open(os.Getenv(serveDBEnv), store.Options{Synchronous: contract.Synchronous(os.Getenv(serveSyncEnv)), QueueWrites: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	defer st.Close()
	srv, err := serve.New(context.Background(), st, serve.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	defer srv.Close()
	if addr := os.Getenv(serveHTTPEnv); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			return 1
		}
		err = srv.ServeListener(context.Background(), ln)
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	if err := srv.Serve(context.Background(), &serve.StdioTransport{Reader: os.Stdin, Writer: os.Stdout}); err != nil {
		return 1
	}
	return 0
}

// self is the test binary as a command, with env set, for a target.
func self(t testing.TB, env ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A race-detector binary sleeps a second at exit unless told not to.
	words := []string{"env", "GORACE=atexit_sleep_ms=0"}
	words = append(words, env...)
	words = append(words, exe, "-test.run=^$")
	for i, w := range words {
		words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}

// serveTarget is the stdio target of the store on db, synchronous s.
func serveTarget(t testing.TB, db string, s contract.Synchronous) string {
	return "stdio:" + self(t, serveDBEnv+"="+db, serveSyncEnv+"="+string(s))
}

// brokenTarget is the stdio target of the broken server of mode on dir.
func brokenTarget(t testing.TB, dir, mode string) string {
	return "stdio:" + self(t, brokenserver.DirEnv+"="+dir, brokenserver.ModeEnv+"="+mode)
}

// opener opens targets with kills, through the broken server's profile
// when broken is set.
func opener(t testing.TB, broken bool, opts mcpclient.Options) func(ctx context.Context, target string) (contract.Target, error) {
	t.Helper()
	if broken {
		p, err := profile.Parse(brokenserver.Profile(), "broken.json")
		if err != nil {
			t.Fatal(err)
		}
		opts.Profile = p
	}
	opts.Faults = &nemesis.Faults{Kinds: []string{history.FaultKill}}
	return func(ctx context.Context, target string) (contract.Target, error) {
		spec, err := mcpclient.Parse(target)
		if err != nil {
			return nil, err
		}
		return mcpclient.Dial(ctx, spec, opts)
	}
}

// crashTest runs a test of kills kills and returns what it found; the
// caller judges.
func crashTest(t *testing.T, test Test) Tested {
	t.Helper()
	test.History = history.NewWriter(history.Header{Experiment: "crash"})
	test.Timeout = time.Minute
	tested, err := test.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A failing test keeps its history for notesbench check (go test
	// -artifacts keeps it past the test).
	t.Cleanup(func() {
		if t.Failed() {
			f := filepath.Join(t.ArtifactDir(), "crash.jsonl")
			if err := test.History.WriteFile(f); err != nil {
				t.Logf("the history: %v", err)
			} else {
				t.Logf("the history: %s (kept past the test with go test -artifacts)", f)
			}
		}
	})
	for _, r := range tested.Verdict.Runs {
		t.Logf("%s: %d kills, %d writes, %d acknowledged, %d cut off (%d had committed), %d lost, %d reads of no document; final %q; integrity %q; %.1fs",
			r.Run, r.Kills, r.Writes, r.Acknowledged, r.CutOff, r.CommittedBeforeKill, r.LostAcknowledged, r.UnreadableReads, r.Unreadable, r.Integrity, r.Seconds)
		if r.Kills != test.Settings.Kills || r.Acknowledged == 0 {
			t.Errorf("%s: %d kills, %d acknowledged", r.Run, r.Kills, r.Acknowledged)
		}
	}
	return tested
}

// settings are the test's: kills kills, each server serving 5 to 40 ms.
func settings(kills int) results.CrashSettings {
	def := DefaultConfig()
	return results.CrashSettings{Kills: kills, Seed: 1, LifeMinNS: def.MinLife, LifeMaxNS: def.MaxLife}
}

// crashClean kills the store, served as notesbench serve serves it, kills
// times under each synchronous setting: nothing acknowledged lost, the
// document reads, the database intact, every check clean.
func crashClean(t *testing.T, kills int) {
	s := settings(kills)
	s.Synchronous = []contract.Synchronous{contract.SyncNormal, contract.SyncFull}
	tested := crashTest(t, Test{Settings: s, Dir: t.TempDir(), Open: opener(t, false, mcpclient.Options{}),
		Serve: func(db string, s contract.Synchronous) string { return serveTarget(t, db, s) }})
	if p := tested.Verdict.Problems; len(p) > 0 {
		t.Errorf("problems: %q", p)
	}
	for _, r := range tested.Verdict.Runs {
		if r.Integrity != "ok" || r.LostAcknowledged != 0 {
			t.Errorf("%s: %+v", r.Run, r)
		}
	}
	for _, c := range tested.Checks.Checks {
		if c.Verdict != results.CheckOK {
			t.Errorf("%s: %s %v %s", c.Check, c.Verdict, c.First, c.Reason)
		}
	}
}

// crashBroken kills the broken server of mode kills times and returns the
// run.
func crashBroken(t *testing.T, mode string, kills int) results.CrashRun {
	s := settings(kills)
	s.Target = brokenTarget(t, t.TempDir(), mode)
	tested := crashTest(t, Test{Settings: s, Open: opener(t, true, mcpclient.Options{})})
	return tested.Verdict.Runs[0]
}

// crashKills is how many kills the short tests make: a few, under the race
// detector (make test) too.
const crashKills = 5

func TestCrashShort(t *testing.T) {
	crashClean(t, crashKills)
}

// skipShortKills skips, in the quick loop (-short), a test that kills
// broken servers to see the harness catch them: TestCrashShort kills
// notesbench serve there, make test runs these.
func skipShortKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kills broken servers: make test runs it")
	}
}

// A server that acknowledges a write before it persists it loses
// acknowledged writes to the kills, in every run; the same server keeping
// its promise (correct) loses none.
func TestCrashCatchesAcknowledgementsBeforePersisting(t *testing.T) {
	skipShortKills(t)
	if r := crashBroken(t, brokenserver.ModeAckEarly, crashKills); r.LostAcknowledged == 0 {
		t.Errorf("a server that acknowledges before it persists lost nothing in %d kills: %+v", r.Kills, r)
	}
	if r := crashBroken(t, brokenserver.ModeCorrect, crashKills); r.LostAcknowledged != 0 || r.Unreadable != "" || r.UnreadableReads != 0 {
		t.Errorf("the broken server keeping its promises: %+v", r)
	}
}

// A server that never starts again after a kill (a stale lock) ends the
// run, not hangs it: the run says it stalled, the final state does not
// read, and every write it acknowledged before counts as lost.
func TestCrashOfAServerThatNeverStartsAgain(t *testing.T) {
	skipShortKills(t)
	testpass.Large(t, "what it tests is done by a broken child the detector does not watch; TestCrashShort runs the harness under it")
	t.Parallel() // waits on the servers it restarts, most of its time
	s := settings(crashKills)
	s.Target = brokenTarget(t, t.TempDir(), brokenserver.ModeStaleLock)
	s.StallNS = 5 * time.Second
	tested, err := Test{Settings: s, Open: opener(t, true, mcpclient.Options{}), Timeout: time.Minute,
		History: history.NewWriter(history.Header{Experiment: "crash"})}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := tested.Verdict.Runs[0]
	if r.Stalled == "" || !strings.Contains(r.Stalled, "stale lock") {
		t.Errorf("stalled: %q, want the server's own words", r.Stalled)
	}
	if r.Unreadable == "" || r.Acknowledged == 0 || r.LostAcknowledged != r.Acknowledged {
		t.Errorf("a server that never starts again: %+v", r)
	}
	if !slices.ContainsFunc(tested.Verdict.Problems, func(p string) bool { return strings.Contains(p, "stalled") }) {
		t.Errorf("problems %q name no stall", tested.Verdict.Problems)
	}
}

// A kill that leaves a store at 0 bytes, which the server then refuses
// every call on (a task store did), ends the run with every acknowledged
// write lost and the server's own words, whenever the kills empty it; a
// run the kills never emptied loses nothing. Either way the run ends.
func TestCrashOfAStoreAKillEmpties(t *testing.T) {
	skipShortKills(t)
	testpass.Large(t, "what it tests is done by a broken child the detector does not watch; TestCrashShort runs the harness under it")
	t.Parallel() // waits on the servers it restarts, most of its time
	s := settings(20)
	s.Target = brokenTarget(t, t.TempDir(), brokenserver.ModeEmptied)
	s.StallNS = 5 * time.Second
	tested, err := Test{Settings: s, Open: opener(t, true, mcpclient.Options{}), Timeout: time.Minute,
		History: history.NewWriter(history.Header{Experiment: "crash"})}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := tested.Verdict.Runs[0]
	t.Logf("%+v", r)
	emptied := strings.Contains(r.Unreadable, "its file is empty")
	switch {
	case r.Acknowledged == 0:
		t.Errorf("nothing acknowledged: %+v", r)
	case emptied && r.LostAcknowledged != r.Acknowledged:
		t.Errorf("the store emptied, yet %d of %d acknowledged writes count as kept", r.Acknowledged-r.LostAcknowledged, r.Acknowledged)
	case !emptied && (r.LostAcknowledged != 0 || r.Kills != 20):
		t.Errorf("the store never emptied, yet: %+v", r)
	}
}

// A server that truncates a document's file and then writes it leaves it
// empty when a kill comes in between: every line written before is lost.
// A reader between the two finds an emptied document; whether one comes in
// a few kills is chance, so the 50-kill test (TestCrash) asks for it.
//
// Whether a kill 5 to 40 ms after an answer falls in a 30 ms window is
// chance too, the worse the busier the machine: here the window is a
// second and a kill comes 300 to 400 ms after an answer. The editors'
// writes queue behind the one in its window, so the next window opens as
// the answer leaves, and every kill falls in one, at any load.
func TestCrashCatchesTruncateThenWrite(t *testing.T) {
	skipShortKills(t)
	t.Parallel() // waits out its windows, most of its time
	s := settings(crashKills)
	s.LifeMinNS, s.LifeMaxNS = 300*time.Millisecond, 400*time.Millisecond
	s.Target = "stdio:" + self(t, brokenserver.DirEnv+"="+t.TempDir(), brokenserver.ModeEnv+"="+brokenserver.ModeTruncate, brokenserver.WindowEnv+"=1s")
	r := crashTest(t, Test{Settings: s, Open: opener(t, true, mcpclient.Options{})}).Verdict.Runs[0]
	if r.LostAcknowledged == 0 {
		t.Errorf("a server that truncates then writes: %d lost, %d reads of no document in %d kills", r.LostAcknowledged, r.UnreadableReads, r.Kills)
	}
}

// The full kill -9 test: 50 kills of the store per synchronous setting, and
// of each broken server. Under the race detector (make test) the 5-kill
// tests stand for it; make test-large runs it.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("50 kills per run; -short and -race run the 5-kill tests only")
	}
	testpass.Large(t, "50 kills per run")
	t.Parallel() // waits on the servers it kills, most of its time: beside the other large tests
	t.Run("store", func(t *testing.T) { crashClean(t, 50) })
	for _, mode := range []string{brokenserver.ModeAckEarly, brokenserver.ModeTruncate} {
		t.Run(mode, func(t *testing.T) {
			r := crashBroken(t, mode, 50)
			if r.LostAcknowledged == 0 {
				t.Errorf("%s: nothing lost in 50 kills", mode)
			}
			if mode == brokenserver.ModeTruncate && r.UnreadableReads == 0 {
				t.Errorf("%s: no read of an emptied document in 50 kills", mode)
			}
		})
	}
}

// Without a kill, the server that acknowledges before it persists loses
// nothing: a later call waits for the write in its lock. So what the kill
// tests catch is the kills' doing.
func TestAcknowledgingEarlyLosesNothingWithoutAKill(t *testing.T) {
	tg, err := opener(t, true, mcpclient.Options{})(context.Background(), brokenTarget(t, t.TempDir(), brokenserver.ModeAckEarly))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	b, err := tg.Open(ctx, contract.RunSpec{Name: "early"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	w, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	text := ""
	for i := range 3 {
		read, err := r.ReadNoteTab(ctx, "note-1", "markdown")
		if err != nil || read.Text != text {
			t.Fatalf("before write %d another process read %q (%v), want %q", i, read.Text, err, text)
		}
		text += fmt.Sprintf("\nline-%d", i)
		if _, err := w.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: read.Version,
			IdempotencyKey: fmt.Sprint("k", i), Operation: contract.OpReplaceText, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if read, err := r.ReadNoteTab(ctx, "note-1", "markdown"); err != nil || read.Text != text {
		t.Fatalf("at the end: %q %v", read.Text, err)
	}
}

// A target opened without faults cannot be killed, and says so.
func TestCrashNeedsAKillableServer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "n.db")
	spec, _ := mcpclient.Parse(serveTarget(t, db, contract.SyncNormal))
	tg, err := mcpclient.Dial(context.Background(), spec, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, err = Run(context.Background(), RunConfig{Name: "crash-x", Target: tg, Kills: 1}, history.NewWriter(history.Header{Experiment: "crash"}))
	if err == nil || !strings.Contains(err.Error(), "only a server notesbench starts can be killed or paused: it was opened without faults") {
		t.Fatalf("crash of a target without faults: %v", err)
	}
}
