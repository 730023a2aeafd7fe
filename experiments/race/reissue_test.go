package race_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// keylessTarget is a server that ignores idempotency keys: it sees a key no
// call sent before on every write, so that nothing it is sent twice is
// answered from the first.
type keylessTarget struct {
	contract.Target
	n atomic.Int64
}

func (t *keylessTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.Target.Open(ctx, run)
	if err != nil {
		return nil, err
	}
	return &keylessBackend{Backend: b, t: t}, nil
}

type keylessBackend struct {
	contract.Backend
	t *keylessTarget
}

func (b *keylessBackend) Session(ctx context.Context) (contract.Session, error) {
	s, err := b.Backend.Session(ctx)
	if err != nil {
		return nil, err
	}
	return &keylessSession{Session: s, t: b.t}, nil
}

type keylessSession struct {
	contract.Session
	t *keylessTarget
}

func (s *keylessSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	req.IdempotencyKey = fmt.Sprintf("keyless-%d", s.t.n.Add(1))
	return s.Session.EditNoteTab(ctx, req)
}

// An editor that reissues sends a write whose reply was lost again, the
// same call with the same key: on a server that keeps its keys the resend
// is answered from the first and the edit lands once; on one that ignores
// them the line is written twice. An editor that does not reissue gives the
// edit up, and neither loses a line.
func TestRaceReissuesAWriteWhoseReplyWasLost(t *testing.T) {
	// Every 4th write of claude's (session 0) commits, and its reply is lost.
	f := func(_ string, session, n int, tool string) (error, bool) {
		if session == 0 && tool == contract.ToolEditNoteTab && n%4 == 0 {
			return simtest.ErrTimeout, true
		}
		return nil, false
	}
	run := func(reissue, keyless bool) (*simtest.FaultyTarget, sim.Result[race.Row, results.RaceRun]) {
		faulty := simtest.NewFaulty(f)
		if keyless {
			faulty.Target = &keylessTarget{Target: simtest.MemTarget}
		}
		c := race.Default()
		c.Clock, c.Seeds, c.Edits, c.Reissue = sim.ClockVirtual, []uint64{1}, 40, reissue
		c.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}
		return faulty, simtest.MustRunOn(t, c, simtest.On(faulty))
	}
	for _, tc := range []struct {
		reissue, keyless bool
	}{{false, false}, {true, false}, {true, true}} {
		faulty, res := run(tc.reissue, tc.keyless)
		r := res.Runs[0]
		lost := faulty.Count("race-note-reapply-seed1", 0)
		if lost == 0 {
			t.Fatalf("reissue %v, keyless %v: no reply was lost", tc.reissue, tc.keyless)
		}
		c := r.Claude
		switch {
		case !tc.reissue:
			if c.Errors != lost || c.Info != lost || c.Duplicates != 0 || c.Lost != 0 {
				t.Errorf("no reissue: %+v, want %d errors and infos, each edit given up", c, lost)
			}
		case !tc.keyless:
			if c.Errors != 0 || c.Info != 0 || c.Duplicates != 0 || c.Lost != 0 {
				t.Errorf("reissue to a server that keeps its keys: %+v, want no error or info and no duplicate (%d replies lost)", c, lost)
			}
		default:
			if c.Errors != 0 || c.Info != 0 || c.Duplicates != lost || c.Lost != 0 {
				t.Errorf("reissue to a server that ignores keys: %+v, want %d duplicates", c, lost)
			}
		}
	}
	// The same seed and flags give the same counts.
	_, a := run(true, true)
	_, b := run(true, true)
	if !equalRuns(a.Runs, b.Runs) {
		t.Errorf("two runs of the same seed differ:\n%+v\n%+v", a.Runs, b.Runs)
	}
}
