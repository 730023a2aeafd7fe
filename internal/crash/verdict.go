package crash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	_ "modernc.org/sqlite" // the driver of the integrity check

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/store"
)

// MaxKills bounds RunConfig.Kills: each kill starts the server again and
// recovers its database.
const MaxKills = 10_000

// Validate checks the parts of c a user sets, before anything runs; its
// errors are *field.Error.
func (c RunConfig) Validate() error {
	if c.Kills < 1 {
		return field.Errorf("kills", "must be at least 1")
	}
	if err := field.AtMost("kills", c.Kills, MaxKills, "each kill starts a server again and recovers its database"); err != nil {
		return err
	}
	if c.MinLife < 0 || c.MaxLife < c.MinLife {
		return field.Errorf("life", "%v to %v is not a range", c.MinLife, c.MaxLife)
	}
	return nil
}

// Judgement is a crash test judged from its runs and the checks of its
// recorded history: every run's outcome, the problems that fail it — an
// acknowledged write missing, a document that no longer reads, a failed
// integrity check, a violated check — and the checks that could not judge
// everything.
type Judgement struct {
	Runs     []results.CrashRun
	Problems []string
	Unknown  []string
}

// Judge judges runs by their own counts and the checks of their history, rep.
func Judge(runs []results.CrashRun, rep *results.CheckReport) Judgement {
	var v Judgement
	for _, c := range rep.Checks {
		if c.Verdict == results.CheckUnknown {
			v.Unknown = append(v.Unknown, c.Check)
		}
	}
	for _, res := range runs {
		v.Runs = append(v.Runs, res)
		what := res.Run
		if res.Synchronous != "" {
			what = "synchronous " + string(res.Synchronous)
		}
		if n := res.LostAcknowledged; n > 0 {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: %d acknowledged writes lost", what, n))
		}
		if res.Unreadable != "" {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: the final state does not read: %s", what, res.Unreadable))
		} else if res.UnreadableReads > 0 {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: %d reads found no document", what, res.UnreadableReads))
		}
		if res.Stalled != "" {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: the run stalled: %s", what, res.Stalled))
		}
		if res.Duplicates > 0 {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: %d lines or sources applied twice", what, res.Duplicates))
		}
		if res.Integrity != "" && res.Integrity != "ok" {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: integrity check: %s", what, res.Integrity))
		}
	}
	for _, c := range rep.Checks {
		if c.Verdict == results.CheckViolated && c.Check != results.CheckLostUpdates {
			v.Problems = append(v.Problems, c.Check+" violated")
		}
	}
	return v
}

// Test is a whole kill -9 test: a run per synchronous setting of the
// embedded store, or one run against a target, their history checked, the
// runs judged.
type Test struct {
	// Settings are the test's parameters; Dir the folder of the embedded
	// store's databases.
	Settings results.CrashSettings
	Dir      string
	// Serve is the target of notesbench serve over stdio on the database
	// file db with synchronous setting s: how the embedded store is run.
	Serve func(db string, s contract.Synchronous) string
	// Open opens a target as a contract.Target whose server can be killed
	// (KillableBackend).
	Open func(ctx context.Context, target string) (contract.Target, error)
	// Timeout bounds each check of the history.
	Timeout time.Duration
	// History records every run; the caller writes it where it likes.
	History *history.Writer
}

// Tested is what a Test found: the checks of the history and the runs
// judged.
type Tested struct {
	Checks  *results.CheckReport
	Verdict Judgement
}

// Run runs the test, then the checks of its history, and judges the runs.
func (t Test) Run(ctx context.Context) (Tested, error) {
	var runs []results.CrashRun
	if t.Settings.Target != "" {
		res, err := t.run(ctx, "crash-target", t.Settings.Target)
		if err != nil {
			return Tested{}, err
		}
		res.Target = t.Settings.Target
		runs = append(runs, res)
	}
	for _, s := range t.Settings.Synchronous {
		if t.Settings.Target != "" {
			break
		}
		res, err := t.embedded(ctx, s)
		if err != nil {
			return Tested{}, fmt.Errorf("synchronous %s: %w", s, err)
		}
		runs = append(runs, res)
	}
	rep, err := Check(ctx, t.History, t.Timeout)
	if err != nil {
		if ctx.Err() != nil {
			return Tested{}, err
		}
		// The runs' own counts stand; the second opinion could not be had.
		rep = &results.CheckReport{Checks: []results.CheckResult{{Check: "history", Verdict: results.CheckUnknown, Reason: "the recorded history does not read: " + err.Error()}}}
	}
	return Tested{Checks: rep, Verdict: Judge(runs, rep)}, nil
}

// run runs one crash run against target.
func (t Test) run(ctx context.Context, name, target string) (res results.CrashRun, err error) {
	tg, err := t.Open(ctx, target)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, tg.Close()) }()
	s := t.Settings
	before, err := files(s.Watch)
	if err != nil {
		return res, err
	}
	res, err = Run(ctx, RunConfig{Name: name, Target: tg, Kills: s.Kills, Seed: s.Seed, MinLife: s.LifeMinNS, MaxLife: s.LifeMaxNS, Stall: s.StallNS}, t.History)
	if err != nil || s.Watch == "" {
		return res, err
	}
	after, err := files(s.Watch)
	for _, f := range after {
		if !slices.Contains(before, f) {
			res.NewFiles = append(res.NewFiles, f)
		}
	}
	return res, err
}

// files lists the names of the files in dir, none for "".
func files(dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("watching %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, nil
}

// embedded runs the embedded store: notesbench serve over stdio on a fresh
// database, whose integrity is checked once every server is gone.
func (t Test) embedded(ctx context.Context, s contract.Synchronous) (results.CrashRun, error) {
	name := "crash-" + string(s)
	db := filepath.Join(t.Dir, name+".db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return results.CrashRun{}, err
		}
	}
	res, err := t.run(ctx, name, t.Serve(db, s))
	res.Synchronous = s
	if err != nil {
		return res, err
	}
	st, err := store.Open(db, store.Options{Synchronous: s})
	if err != nil {
		return res, fmt.Errorf("opening the database after the last kill: %w", err)
	}
	conn, err := st.Conn(ctx)
	if err == nil {
		res.Integrity, err = conn.IntegrityCheck(ctx)
		err = errors.Join(err, conn.Close())
	}
	return res, errors.Join(err, st.Close())
}

// Check judges the runs w recorded, as notesbench check would judge the file:
// it writes the history, reads it back and runs package check.
func Check(ctx context.Context, w *history.Writer, timeout time.Duration) (*results.CheckReport, error) {
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	h, err := history.Read(ctx, &buf, "crash history")
	if err != nil {
		return nil, err
	}
	return check.Run(ctx, []*history.History{h}, check.Options{Timeout: timeout})
}
