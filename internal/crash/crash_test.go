package crash

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/store"
)

// The test binary is also the child: started with the database in its
// environment, it serves the store instead of running tests.
const (
	childDBEnv   = "NOTESBENCH_CRASH_CHILD_DB"
	childSyncEnv = "NOTESBENCH_CRASH_CHILD_SYNC"
	// childEarlyEnv makes the child answer every edit before its COMMIT and
	// hold the transaction open for the duration it names.
	childEarlyEnv = "NOTESBENCH_CRASH_CHILD_EARLY"
)

// earlyHold is how long a child that answers before COMMIT holds each edit's
// transaction open: far longer than a child lives after its first
// acknowledgement (DefaultConfig: at most 40 ms), so that every edit it
// answers is still uncommitted when the kill comes, however late the kill.
const earlyHold = 2 * time.Second

func TestMain(m *testing.M) {
	if db := os.Getenv(childDBEnv); db != "" {
		cfg := ChildConfig{DB: db, Synchronous: contract.Synchronous(os.Getenv(childSyncEnv))}
		if hold, err := time.ParseDuration(os.Getenv(childEarlyEnv)); err == nil {
			cfg.replyBeforeCommit = func() { time.Sleep(hold) }
		}
		err := Serve(context.Background(), os.Stdin, os.Stdout, cfg)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func testCommand(cfg ChildConfig) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDBEnv+"="+cfg.DB, childSyncEnv+"="+string(cfg.Synchronous))
	return cmd
}

// earlyCommand starts a child that answers edits before their COMMIT.
func earlyCommand(cfg ChildConfig) *exec.Cmd {
	cmd := testCommand(cfg)
	cmd.Env = append(cmd.Env, childEarlyEnv+"="+earlyHold.String())
	return cmd
}

// crashRun runs kills kills under each synchronous mode with children that
// command starts, and returns each run's result beside check's figures and
// the report.
func crashRun(t *testing.T, kills int, command func(ChildConfig) *exec.Cmd) ([]Result, map[string]check.RunResult, *check.Report) {
	t.Helper()
	ctx := context.Background()
	w := history.NewWriter(history.Header{Experiment: "crash"})
	var results []Result
	for _, sync := range []contract.Synchronous{contract.SyncNormal, contract.SyncFull} {
		cfg := DefaultConfig()
		cfg.Dir, cfg.Synchronous, cfg.Kills, cfg.Command = t.TempDir(), sync, kills, command
		res, err := Run(ctx, cfg, w)
		if err != nil {
			t.Fatalf("synchronous %s: %v", sync, err)
		}
		results = append(results, res)
	}
	rep, err := Check(ctx, w, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]check.RunResult{}
	for _, r := range rep.Runs {
		runs[r.Run] = r
	}
	for _, res := range results {
		run := runs[res.Run]
		t.Logf("synchronous %s: %d kills survived, %d writes, %d acknowledged, %d cut off (%d had committed), %d lost; integrity %s; %.1fs",
			res.Synchronous, res.Kills, res.Writes, res.Acknowledged, res.CutOff, res.CommittedBeforeKill, run.Lost, res.Integrity, res.Seconds)
		if res.Kills != kills || res.Integrity != "ok" || res.Acknowledged == 0 {
			t.Errorf("synchronous %s: %+v", res.Synchronous, res)
		}
	}
	return results, runs, rep
}

// crashClean runs kills kills under each synchronous mode and checks the
// outcome: integrity ok, every acknowledged write in the final state, every
// check clean.
func crashClean(t *testing.T, kills int) {
	results, runs, rep := crashRun(t, kills, testCommand)
	for _, res := range results {
		run := runs[res.Run]
		acked := 0
		for _, e := range run.Editors {
			acked += e.Acknowledged
		}
		if run.Lost != 0 || acked == 0 {
			t.Errorf("synchronous %s: %d acknowledged intents judged, %d lost", res.Synchronous, acked, run.Lost)
		}
	}
	for _, c := range rep.Checks {
		if c.Verdict != check.OK {
			t.Errorf("%s: %s %v %s", c.Check, c.Verdict, c.First, c.Reason)
		}
	}
}

// crashCaught runs kills kills under each synchronous mode against children
// that answer edits before their COMMIT, and requires every run to be caught
// as lost acknowledged writes: edits the kills cut between the answer and
// the COMMIT, never a source (whose answers come after their COMMIT).
func crashCaught(t *testing.T, kills int) {
	results, runs, rep := crashRun(t, kills, earlyCommand)
	for _, res := range results {
		run := runs[res.Run]
		edits := lostBy(run, "claude") + lostBy(run, "human")
		if run.Lost == 0 || edits != run.Lost {
			t.Errorf("synchronous %s: a store that answers before COMMIT lost %d acknowledged writes (%d edits) in %d kills; want edits lost, none else",
				res.Synchronous, run.Lost, edits, res.Kills)
		}
	}
	for _, c := range rep.Checks {
		if c.Check == check.LostUpdates && c.Verdict != check.Violated {
			t.Errorf("%s: %s, want violated", c.Check, c.Verdict)
		}
	}
}

// A few kills per mode: the short version, for every go test.
func TestCrashShort(t *testing.T) {
	crashClean(t, 5)
}

// A child that answers an edit before its COMMIT is caught in every run, as
// lost acknowledged writes: each kill lands between an answer and its COMMIT.
func TestCrashCatchesRepliesBeforeCommit(t *testing.T) {
	crashCaught(t, 5)
}

// The full kill -9 test: 50 kills per mode, of a child that answers after
// COMMIT (nothing lost) and of one that answers before (caught). Under the
// race detector, which slows every child tenfold (make test), the 5-kill tests
// stand for it; make test-full and notesbench crash run it.
func TestCrash(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("50 kills per synchronous mode; -short and -race run the 5-kill tests only")
	}
	t.Run("answers after COMMIT", func(t *testing.T) { crashClean(t, 50) })
	t.Run("answers before COMMIT", func(t *testing.T) { crashCaught(t, 50) })
}

// Without a kill, a child that answers before its COMMIT loses nothing: its
// edits commit once their transaction is let go. So what the kill tests catch
// is the kills' doing. Each edit is answered while its transaction is still
// open: a read from another session then sees the version before it.
func TestRepliesBeforeCommitLoseNothingWithoutAKill(t *testing.T) {
	db := filepath.Join(t.TempDir(), "early.db")
	release := make(chan struct{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), inR, outW, ChildConfig{DB: db, Synchronous: contract.SyncNormal,
			replyBeforeCommit: func() { <-release }})
		outW.Close()
	}()
	// stop ends the child as a clean stop does: its input closes, and every
	// transaction held open is let go.
	stop := sync.OnceValue(func() error {
		inW.Close()
		close(release)
		go io.Copy(io.Discard, outR)
		return <-served
	})
	t.Cleanup(func() { stop() })
	replies := bufio.NewScanner(outR)
	var id int64
	call := func(req request) reply {
		t.Helper()
		id++
		req.ID = id
		b, _ := json.Marshal(req)
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		if !replies.Scan() {
			t.Fatalf("no reply to %s: %v", b, replies.Err())
		}
		var r reply
		if err := json.Unmarshal(replies.Bytes(), &r); err != nil || r.ID != id || r.Failure != "" {
			t.Fatalf("reply to %s: %s (%v)", b, replies.Bytes(), err)
		}
		return r
	}
	version := func(session int) int {
		t.Helper()
		var c struct{ Version int }
		if err := json.Unmarshal(call(request{Session: session, Tool: contract.ToolReadNoteTab, Args: json.RawMessage(`{"note_id":"note-1","tab_id":"markdown"}`)}).Result, &c); err != nil {
			t.Fatal(err)
		}
		return c.Version
	}
	if !replies.Scan() || !strings.Contains(replies.Text(), `"ready":true`) {
		t.Fatalf("the child began with %q", replies.Text())
	}
	call(request{Op: "create_note", Note: "note-1"})
	text := ""
	const edits = 3
	for i := 0; i < edits; i++ {
		v := version(1)
		text += fmt.Sprintf("\nline-%d", i)
		args, _ := json.Marshal(contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: contract.Version(fmt.Sprint(v)),
			IdempotencyKey: fmt.Sprint("k", i), Operation: contract.OpReplaceText, Text: text})
		var res contract.EditResult
		if err := json.Unmarshal(call(request{Session: 1, Tool: contract.ToolEditNoteTab, Args: args}).Result, &res); err != nil || res.Version != contract.Version(fmt.Sprint(v+1)) {
			t.Fatalf("edit %d: %+v %v", i, res, err)
		}
		if got := version(2); got != v {
			t.Fatalf("edit %d was answered as version %s; another session then read version %d, want the %d before it: the answer did not come before COMMIT", i, res.Version, got, v)
		}
		release <- struct{}{} // now it commits
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn, err := st.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got, err := conn.ReadNoteTab(context.Background(), "note-1", "markdown")
	if err != nil || got.Text != text || got.Version != contract.Version(fmt.Sprint(1+edits)) {
		t.Fatalf("after a clean stop: %q version %s (%v); want %q version %d", got.Text, got.Version, err, text, 1+edits)
	}
}

// lostBy returns the intents of editor the final state lacks.
func lostBy(r check.RunResult, editor string) int {
	for _, e := range r.Editors {
		if e.Editor == editor {
			return e.Lost
		}
	}
	return 0
}
