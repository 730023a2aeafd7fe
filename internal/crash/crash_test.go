package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// The test binary is also the child: started with the database in its
// environment, it serves the store instead of running tests.
const (
	childDBEnv   = "NOTESBENCH_CRASH_CHILD_DB"
	childSyncEnv = "NOTESBENCH_CRASH_CHILD_SYNC"
	// childLieEnv makes the child acknowledge every 4th edit without making it.
	childLieEnv = "NOTESBENCH_CRASH_CHILD_LIE"
)

func TestMain(m *testing.M) {
	if db := os.Getenv(childDBEnv); db != "" {
		cfg := ChildConfig{DB: db, Synchronous: contract.Synchronous(os.Getenv(childSyncEnv))}
		if os.Getenv(childLieEnv) != "" {
			var edits atomic.Int64
			cfg.lie = func(tool string, args json.RawMessage) (json.RawMessage, bool) {
				if tool != contract.ToolEditNoteTab || edits.Add(1)%4 != 0 {
					return nil, false
				}
				var req contract.EditRequest
				json.Unmarshal(args, &req)
				n, _ := strconv.Atoi(string(req.ExpectedVersion))
				return json.RawMessage(fmt.Sprintf(`{"note_id":%q,"tab_id":%q,"version":%d,"changed":"text"}`, req.NoteID, req.TabID, n+1)), true
			}
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

// A store that acknowledges writes it never made is caught: lines lost,
// registers not linearizable.
func TestCrashCatchesLies(t *testing.T) {
	ctx := context.Background()
	w := history.NewWriter(history.Header{Experiment: "crash"})
	cfg := DefaultConfig()
	cfg.Dir, cfg.Kills = t.TempDir(), 3
	cfg.Command = func(c ChildConfig) *exec.Cmd {
		cmd := testCommand(c)
		cmd.Env = append(cmd.Env, childLieEnv+"=1")
		return cmd
	}
	res, err := Run(ctx, cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ctx, w, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if res.Integrity != "ok" || rep.Runs[0].Lost == 0 || rep.Checks[0].Verdict != check.Violated || rep.Checks[2].Verdict != check.Violated {
		t.Errorf("a lying store passed: %+v; lost %d; %s %s", res, rep.Runs[0].Lost, rep.Checks[0].Verdict, rep.Checks[2].Verdict)
	}
}

// crashRun runs kills kills under each synchronous mode and checks the
// outcome: integrity ok, every acknowledged write in the final state, every
// check clean.
func crashRun(t *testing.T, kills int) {
	ctx := context.Background()
	w := history.NewWriter(history.Header{Experiment: "crash"})
	var results []Result
	for _, sync := range []contract.Synchronous{contract.SyncNormal, contract.SyncFull} {
		cfg := DefaultConfig()
		cfg.Dir, cfg.Synchronous, cfg.Kills, cfg.Command = t.TempDir(), sync, kills, testCommand
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

// A few kills per mode: the short version, for every go test.
func TestCrashShort(t *testing.T) {
	crashRun(t, 5)
}

// The full kill -9 test: 50 kills per mode, about 5 s. Under the race detector,
// which slows every child tenfold (make test), TestCrashShort stands for it;
// notesbench crash runs it for users.
func TestCrash(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("50 kills per synchronous mode; -short and -race run TestCrashShort only")
	}
	crashRun(t, 50)
}
