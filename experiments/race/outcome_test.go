package race_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// A server error is a measurement, not the end of the run: writes that time
// out after they committed, writes refused and reads that fail are counted
// per editor, the run goes on to the end, and under note/reapply nothing the
// server acknowledged is lost (a write whose outcome is unknown is never
// counted as acknowledged). The counts are exact on the virtual clock.
func TestRaceCountsServerErrors(t *testing.T) {
	// claude (session 0): every 4th write times out after it committed;
	// the person (session 1): every 5th read is refused, every 6th write
	// refused before it reaches the store.
	f := func(_ string, session, n int, tool string) (error, bool) {
		switch {
		case session == 0 && tool == contract.ToolEditNoteTab && n%4 == 0:
			return simtest.ErrTimeout, true
		case session == 1 && tool == contract.ToolReadNoteTab && n%5 == 0:
			return &contract.NotFoundError{Field: "note_id", ID: "note-1"}, false
		case session == 1 && tool == contract.ToolEditNoteTab && n%6 == 0:
			return simtest.ErrRefused, false
		}
		return nil, false
	}
	faulty := simtest.NewFaulty(f)
	c := race.Default()
	c.Clock, c.Seeds, c.Edits = sim.ClockVirtual, []uint64{1}, 40
	c.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}, {Guard: contract.GuardNone, Policy: sim.Reapply}}
	res := simtest.MustRunOn(t, c, simtest.On(faulty))
	for i, r := range res.Runs {
		name := []string{"race-note-reapply-seed1", "race-none-seed1"}[i]
		if r.Stopped != "" || r.Unreadable != "" {
			t.Errorf("%s: stopped %q, unreadable %q", r.Guard, r.Stopped, r.Unreadable)
		}
		if r.Claude.Errors == 0 || r.Human.Errors == 0 {
			t.Errorf("%s: errors claude %d, human %d: want both above 0", r.Guard, r.Claude.Errors, r.Human.Errors)
		}
		// Each editor's errors are exactly the faults it met.
		if want := faulty.Count(name, 0); r.Claude.Errors != want {
			t.Errorf("%s: claude errors %d, want the %d faults injected", r.Guard, r.Claude.Errors, want)
		}
		if want := faulty.Count(name, 1); r.Human.Errors != want {
			t.Errorf("%s: human errors %d, want the %d faults injected", r.Guard, r.Human.Errors, want)
		}
	}
	note := res.Rows[0]
	if note.Lost != 0 {
		t.Errorf("note/reapply lost %d acknowledged lines: a server error must not be counted as an acknowledgement", note.Lost)
	}
	if note.ErrorsClaude != res.Runs[0].Claude.Errors || note.ErrorsHuman != res.Runs[0].Human.Errors {
		t.Errorf("row errors %d / %d, runs %d / %d", note.ErrorsClaude, note.ErrorsHuman, res.Runs[0].Claude.Errors, res.Runs[0].Human.Errors)
	}
	// The same seed and flags give the same counts.
	again := simtest.MustRunOn(t, c, simtest.On(simtest.NewFaulty(f)))
	if !equalRuns(res.Runs, again.Runs) {
		t.Errorf("two runs of the same seed differ:\n%+v\n%+v", res.Runs, again.Runs)
	}
}

// equalRuns compares race runs, wall times aside.
func equalRuns(a, b []results.RaceRun) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.WallS, y.WallS = 0, 0
		if x != y {
			return false
		}
	}
	return true
}

// A run whose calls keep failing ends at --max-errors, with what it
// measured kept and the reason, the server's last error, in its run.
func TestMaxErrorsEndsARunAndKeepsItsCounts(t *testing.T) {
	f := func(_ string, session, n int, tool string) (error, bool) {
		if session < 2 && tool == contract.ToolEditNoteTab && n > 3 {
			return simtest.ErrTimeout, false
		}
		return nil, false
	}
	c := race.Default()
	c.Clock, c.Seeds, c.Edits = sim.ClockVirtual, []uint64{1}, 100
	c.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}
	c.MaxErrors = 25
	res := simtest.MustRunOn(t, c, simtest.On(simtest.NewFaulty(f)))
	r := res.Runs[0]
	if got := r.Claude.Errors + r.Human.Errors; got != 25 {
		t.Errorf("%d errors counted, want the limit, 25", got)
	}
	if !strings.Contains(r.Stopped, "ended after 25 calls that ended in an error") || !strings.Contains(r.Stopped, "the call timed out") {
		t.Errorf("stopped %q: want the count and the server's last error", r.Stopped)
	}
	if acked := r.Claude.Edits + r.Human.Edits; r.Lost() != 0 || acked == 0 {
		t.Errorf("lost %d of what was acknowledged", r.Lost())
	}
	if len(res.Rows) != 1 || res.Rows[0].ErrorsClaude+res.Rows[0].ErrorsHuman != 25 {
		t.Errorf("rows %+v: want the run's counts", res.Rows)
	}
}

// A document that no longer reads at the end (the server lost it) counts
// every acknowledged line as lost and says why.
func TestRaceUnreadableFinalState(t *testing.T) {
	f := func(_ string, session, n int, tool string) (error, bool) {
		if session == 2 && tool == contract.ToolReadNoteTab {
			return &contract.NotFoundError{Field: "note_id", ID: "note-1"}, false
		}
		return nil, false
	}
	c := race.Default()
	c.Clock, c.Seeds, c.Edits = sim.ClockVirtual, []uint64{1}, 10
	c.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}
	r := simtest.MustRunOn(t, c, simtest.On(simtest.NewFaulty(f))).Runs[0]
	if r.Lost() != 20 || !strings.Contains(r.Unreadable, "could not be read") {
		t.Errorf("lost %d of 20, unreadable %q", r.Lost(), r.Unreadable)
	}
}

// A final read the server keeps answering with an error (a document it
// can no longer parse) counts the document unreadable, every acknowledged
// line lost, as does one whose server died and does not come back (a kill
// left it unable to start: the kill -9 harness counts it so); one that
// gets no answer at all (the calls time out) is the run's error.
func TestRaceFinalReadServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"an error answered", contract.Indeterminate(contract.KindServerError, errors.New("JSON-RPC error -32603: Unexpected end of JSON input")), true},
		{"a server that does not come back", contract.Indeterminate(contract.KindDied, errors.New("no MCP handshake, at each of two starts: the server exited")), true},
		{"no answer", contract.Indeterminate(contract.KindTimeout, errors.New("the call timed out")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := func(_ string, session, n int, tool string) (error, bool) {
				if session == 2 && tool == contract.ToolReadNoteTab {
					return tc.err, false
				}
				return nil, false
			}
			c := race.Default()
			c.Clock, c.Seeds, c.Edits = sim.ClockVirtual, []uint64{1}, 5
			c.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}
			res, err := simtest.RunOn(context.Background(), c, simtest.On(simtest.NewFaulty(f)))
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "the call timed out") {
					t.Fatalf("%v", err)
				}
				return
			}
			if err != nil || res.Runs[0].Lost() != 10 || !strings.Contains(res.Runs[0].Unreadable, "could not be read") {
				t.Fatalf("%v %+v", err, res.Runs)
			}
		})
	}
}
