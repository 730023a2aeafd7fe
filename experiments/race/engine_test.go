package race_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

func TestRaceVirtualIsDeterministic(t *testing.T) {
	cfg := race.Default()
	cfg.Env = simtest.VirtualEnv([]uint64{1, 2, 3})
	a := simtest.MustRun(t, cfg).Runs
	cfg.Parallel = 1 // completion order must not matter
	b := simtest.MustRun(t, cfg).Runs
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("two identical virtual runs differ:\n%s\n%s", ja, jb)
	}
	if a[0] == a[1] {
		t.Fatal("seeds 1 and 2 gave identical runs")
	}
}

// Invariants over 200 seeds on the virtual clock (50 under the race detector,
// which slows SQLite tenfold).
func TestRaceInvariantsOver200Seeds(t *testing.T) {
	if testing.Short() {
		t.Skip("200 seeds")
	}
	seeds := uint64(200)
	if testpass.Race {
		seeds = 50
	}
	cfg := race.Default()
	cfg.Env = simtest.VirtualEnv(simtest.Seeds(1, seeds))
	cfg.Edits = 20
	cfg.Modes = []race.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}, {Guard: contract.GuardNote, Policy: sim.Reapply}, {Guard: contract.GuardTab, Policy: sim.Reapply}, {Guard: contract.GuardNote, Policy: sim.Refresh}}
	runs := simtest.MustRun(t, cfg).Runs
	var noneLossless, refreshLost, refreshConflicts int
	for _, r := range runs {
		switch {
		case r.Guard == "none":
			if r.Lost() == 0 {
				noneLossless++
			}
			if r.Claude.Conflicts+r.Human.Conflicts != 0 {
				t.Fatalf("seed %d: guard none reported conflicts", r.Seed)
			}
		case r.Policy == "reapply":
			if r.Lost() != 0 {
				t.Fatalf("seed %d: %s/reapply lost %d lines", r.Seed, r.Guard, r.Lost())
			}
		case r.Policy == "refresh":
			refreshLost += r.Lost()
			refreshConflicts += r.Claude.Conflicts + r.Human.Conflicts
		}
	}
	if noneLossless > int(seeds)/100+1 {
		t.Errorf("guard none lost nothing in %d of %d runs; want nearly every run to lose lines", noneLossless, seeds)
	}
	if refreshLost == 0 || refreshConflicts == 0 {
		t.Errorf("refresh lost %d lines with %d conflicts; want both above zero", refreshLost, refreshConflicts)
	}
}

// On the real clock the interleaving is the operating system's, so only
// invariants hold: re-applying after a conflict never loses a line, under
// either timing profile.
func TestRaceRealClockReapplyLosesNothing(t *testing.T) {
	for _, p := range []sim.TimingModel{sim.TimingDefault, sim.TimingPublishedFit} {
		cfg := race.Default()
		cfg.Env = sim.Env{Clock: sim.ClockReal, Seeds: []uint64{1, 2, 3}}
		cfg.Edits = 20
		cfg.ClaudeThink = sim.Dist{Min: time.Millisecond, Max: 3 * time.Millisecond}
		cfg.HumanThink = sim.Dist{Min: time.Millisecond, Max: 3 * time.Millisecond}
		cfg.Editing = cfg.WithTiming(p)
		cfg.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}, {Guard: contract.GuardTab, Policy: sim.Reapply}}
		res, err := simtest.RunOn(context.Background(), cfg, simtest.On(simtest.FileTarget(t, t.TempDir())))
		if err != nil {
			t.Fatal(err)
		}
		runs := res.Runs
		if len(runs) != 6 {
			t.Fatalf("timing %s: %d runs, want 6 (2 modes × 3 seeds)", p.Name(), len(runs))
		}
		for _, r := range runs {
			if r.Lost() != 0 || r.Claude.Edits != 20 {
				t.Fatalf("timing %s, seed %d %s: %+v", p.Name(), r.Seed, r.Guard, r)
			}
			if r.Claude.Writes != r.Claude.Edits+r.Claude.Conflicts {
				t.Fatalf("timing %s, seed %d: writes %d != edits %d + conflicts %d", p.Name(), r.Seed, r.Claude.Writes, r.Claude.Edits, r.Claude.Conflicts)
			}
		}
	}
}

// Under published-fit, as under the default: reapply never loses a line
// (text or cells), every conflict costs exactly one more write, and guard
// none loses lines. (The published setup's counts under the profile are
// pinned by its baselines.)
func TestPublishedFitInvariants(t *testing.T) {
	seeds := uint64(20)
	if testpass.Race {
		seeds = 6
	}
	raceCfg := race.Default()
	raceCfg.Env = simtest.VirtualEnv(simtest.Seeds(1, seeds))
	raceCfg.Edits = 20
	raceCfg.Editing = raceCfg.WithTiming(sim.TimingPublishedFit)
	raceCfg.Modes = []race.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}, {Guard: contract.GuardNote, Policy: sim.Reapply}, {Guard: contract.GuardTab, Policy: sim.Reapply}}
	runs := simtest.MustRun(t, raceCfg).Runs
	noneLost := 0
	for _, r := range runs {
		for _, e := range []results.EditorRun{r.Claude, r.Human} {
			if e.Writes != e.Edits+e.Conflicts {
				t.Fatalf("seed %d %s: writes %d != edits %d + conflicts %d", r.Seed, r.Guard, e.Writes, e.Edits, e.Conflicts)
			}
		}
		if r.Guard == "none" {
			noneLost += r.Lost()
		} else if r.Lost() != 0 {
			t.Fatalf("seed %d: %s/reapply lost %d lines under published-fit", r.Seed, r.Guard, r.Lost())
		}
	}
	if noneLost == 0 {
		t.Error("guard none lost nothing under published-fit")
	}
}

func TestRaceConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		mutate func(*race.Config)
		want   string
	}{
		{func(c *race.Config) { c.Edits = -3 }, "edits: must be at least 1"},
		{func(c *race.Config) { c.Seeds = nil }, "seeds: no seeds given"},
		{func(c *race.Config) { c.Clock = "wall" }, `clock: unknown clock "wall" (want real or virtual)`},
		{func(c *race.Config) { c.Pause = "fast" }, "pause: fast: not a duration (want think, uniform0, a duration or a range such as 10ms-70ms)"},
	} {
		cfg := race.Default()
		tc.mutate(&cfg)
		if err := cfg.Validate(simtest.MemTarget); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// A time limit on the real clock stops the editors where they are: the run
// reads its final state and counts what was made, nothing made counts as
// lost, and the run says where it stopped. One already past stops them
// before their first edit. The virtual clock ignores it: its counts are
// the same with it as without.
func TestRaceTimeLimit(t *testing.T) {
	cfg := race.Default()
	cfg.Env = sim.Env{Clock: sim.ClockReal, Seeds: []uint64{1, 2}, Parallel: 1}
	cfg.Edits = 1000 // more than the limit lets them make
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: time.Millisecond}, sim.Dist{Max: time.Millisecond}, "0"
	cfg.Modes = []race.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}
	rt := simtest.On(simtest.FileTarget(t, t.TempDir()))
	rt.StopAt = time.Now().Add(300 * time.Millisecond)
	res, err := simtest.RunOn(context.Background(), cfg, rt)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Lost() != 0 || r.Intended() >= 2*cfg.Edits || r.Claude.Writes != r.Claude.Edits+r.Claude.Conflicts {
			t.Errorf("seed %d: %+v", r.Seed, r)
		}
		if want := fmt.Sprintf("stopped at its time limit after %d of its 2000 edits", r.Intended()); !strings.HasSuffix(r.Stopped, want) {
			t.Errorf("seed %d stopped %q, want %q", r.Seed, r.Stopped, want)
		}
	}
	if r := res.Runs[1]; r.Intended() != 0 {
		t.Errorf("the second seed started after the limit made %d edits", r.Intended())
	}

	virtual := race.Default()
	virtual.Env = simtest.VirtualEnv([]uint64{1})
	want := simtest.MustRun(t, virtual)
	rt = simtest.OnMemory
	rt.StopAt = time.Now().Add(-time.Hour)
	got, err := simtest.RunOn(context.Background(), virtual, rt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("the virtual clock under a time limit: %+v, want %+v", got.Rows, want.Rows)
	}
}
