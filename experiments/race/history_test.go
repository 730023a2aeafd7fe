package race_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/tabs"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// clean reports whether a run shows no violation at all.
func clean(r results.CheckRun) bool {
	return r.Linearizable == results.CheckOK && r.VersionCollisions == 0 && r.Lost == 0 && r.Duplicates == 0 &&
		r.ReplayMismatches == 0 && r.StaleOverwrites == 0
}

// The checker agrees with the engine on the race, tabs and fast setups: the
// same lost lines and cells, editor by editor, and violations exactly where the
// contract allows them — stale overwrites under guard none and the refresh
// policy, repeated versions under ms versions — and none under the note or tab
// guard with reapply, nor with us-suffix or counter versions. Every register is
// linearizable: versions under a guard behave as compare-and-set.
func TestCheckAgreesWithRaceEngine(t *testing.T) {
	chunks := simtest.AgreementSeeds()
	lossy := map[string]int{}     // mode → runs with a lost line
	violating := map[string]int{} // mode → runs with a violation
	for _, seeds := range chunks {
		agreeWithRaceEngine(t, seeds, lossy, violating)
	}
	for _, mode := range []string{"race-none", "race-note-refresh", "fast-ms"} {
		// Short fast runs may collide without losing a line.
		if violating[mode] == 0 || (lossy[mode] == 0 && mode != "fast-ms") {
			t.Errorf("%s: %d runs with a violation, %d with a lost line, of %d; want some of each", mode, violating[mode], lossy[mode], simtest.SeedCount(chunks))
		}
	}
	t.Logf("%d seeds; runs with a violation: %v; with a lost line: %v", simtest.SeedCount(chunks), violating, lossy)
}

// agreeWithRaceEngine runs race, tabs and fast on seeds, recording, and
// compares the engine's counts with check's, run by run.
func agreeWithRaceEngine(t *testing.T, seeds []uint64, lossy, violating map[string]int) {
	t.Helper()
	ctx := context.Background()
	w := history.NewWriter(history.Header{Experiment: "race, tabs, fast"})
	raceCfg := race.Default()
	raceCfg.Clock, raceCfg.Seeds = sim.ClockVirtual, seeds
	tabsCfg := tabs.Default()
	tabsCfg.Clock, tabsCfg.Seeds = sim.ClockVirtual, seeds
	fastCfg := fast.Default()
	fastCfg.Clock, fastCfg.Seeds = sim.ClockVirtual, seeds
	rt := sim.Runtime{Target: simtest.MemTarget, History: w}
	fastCfg.Edits = 200 // of 2,000 published: ms versions collide all the same
	if testpass.Race {
		fastCfg.Edits = 60
	}

	// Runs come back modes outer, seeds inner: name them as the engine does.
	var all []results.RaceRun
	var names []string
	add := func(runs []results.RaceRun, err error, name func(mode int, seed uint64) string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range runs {
			if r.Seed != seeds[i%len(seeds)] {
				t.Fatalf("run %d is of seed %d, want %d", i, r.Seed, seeds[i%len(seeds)])
			}
			all = append(all, r)
			names = append(names, name(i/len(seeds), r.Seed))
		}
	}
	raceRes, err := raceCfg.Run(ctx, rt, seeds)
	add(raceRes.Runs, err, func(m int, seed uint64) string {
		return fmt.Sprintf("race-%s-seed%d", strings.ReplaceAll(raceCfg.Modes[m].String(), "/", "-"), seed)
	})
	tabsRes, err := tabsCfg.Run(ctx, rt, seeds)
	add(tabsRes.Runs, err, func(m int, seed uint64) string { return fmt.Sprintf("tabs-%s-seed%d", tabsCfg.Scopes[m], seed) })
	fastRes, err := fastCfg.Run(ctx, rt, seeds)
	add(fastRes.Runs, err, func(m int, seed uint64) string { return fmt.Sprintf("fast-%s-seed%d", fastCfg.Formats[m], seed) })
	runs := simtest.Judge(t, w)

	for i := range all {
		r := &all[i]
		name := names[i]
		cr, ok := runs[name]
		if !ok {
			t.Fatalf("no run %s in the history", name)
		}
		mode := name[:len(name)-len(fmt.Sprintf("-seed%d", r.Seed))]
		if lostBy(cr, "claude") != r.Claude.Lost || lostBy(cr, "human") != r.Human.Lost {
			t.Errorf("%s: check finds %d / %d lost, the engine %d / %d", name, lostBy(cr, "claude"), lostBy(cr, "human"), r.Claude.Lost, r.Human.Lost)
		}
		if cr.Linearizable != results.CheckOK || cr.Duplicates != 0 || cr.ReplayMismatches != 0 {
			t.Errorf("%s: %+v", name, cr)
		}
		if cr.Lost > 0 {
			lossy[mode]++
			// A line is lost only by a write that never saw it.
			if cr.StaleOverwrites == 0 {
				t.Errorf("%s: %d lines lost without a stale overwrite", name, cr.Lost)
			}
		}
		if !clean(cr) {
			violating[mode]++
		}
		allowed := r.Guard == "none" || r.Policy == string(sim.Refresh) || r.VersionFormat == string(contract.FormatMS)
		if !allowed && !clean(cr) {
			t.Errorf("%s: a violation where the contract forbids one: %+v", name, cr)
		}
		if r.VersionFormat != string(contract.FormatMS) && cr.VersionCollisions != 0 {
			t.Errorf("%s: %d version collisions", name, cr.VersionCollisions)
		}
	}
}

// A run is named as its mode is written: guard none has no policy, in its
// name as in its history header.
func TestRunNamesFollowModes(t *testing.T) {
	w := history.NewWriter(history.Header{Experiment: "race"})
	raceCfg := race.Default()
	raceCfg.Env = simtest.VirtualEnv([]uint64{1})
	raceCfg.Edits = 3
	raceCfg.Modes = []race.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}, {Guard: contract.GuardNote, Policy: sim.Refresh}}
	if _, err := raceCfg.Run(context.Background(), sim.Runtime{Target: simtest.MemTarget, History: w}, raceCfg.Seeds); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := history.Read(context.Background(), &buf, "race")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range h.Runs {
		got = append(got, r.Header.Run+" policy "+r.Header.Policy)
	}
	if want := []string{"race-none-seed1 policy ", "race-note-refresh-seed1 policy refresh"}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
}

// lostBy returns the intents of editor the checker finds missing from the
// final state, 0 when the editor made no call.
func lostBy(r results.CheckRun, editor string) int {
	for _, e := range r.Editors {
		if e.Editor == editor {
			return e.Lost
		}
	}
	return 0
}
