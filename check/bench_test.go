package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// raceRun simulates the race experiment's loop as a history, without a store:
// two editors on one Note, each edit a pause, a read, a think and a write, a
// conflict re-read and retried at once (reapply or refresh), under a guard or
// none. Events take turns on a discrete timeline in nanoseconds, calls take
// 60 µs, so calls of the two editors overlap as they would on a real clock.
func raceRun(seed uint64, guard contract.Guard, policy string, edits int) *history.Run {
	r := rand.New(rand.NewPCG(seed, 7))
	run := &history.Run{Header: history.RunHeader{Run: fmt.Sprintf("race-%s-%s-seed%d", guard, policy, seed), Seed: seed,
		Variant: contract.Variant{Guard: guard}.WithDefaults(), Policy: policy}}
	const call = 60_000
	version, text := 1, []string{""}
	type ed struct {
		name                string
		at                  int64 // when the editor's next step starts
		edit, tries         int
		base, expected      int
		content             []string
		reading, reapplying bool
	}
	eds := []*ed{{name: "claude"}, {name: "human"}}
	think := func(e *ed) int64 {
		if e.name == "claude" {
			return 20e6 + r.Int64N(60e6)
		}
		return 5e6 + r.Int64N(35e6)
	}
	for _, e := range eds {
		e.at = think(e)
		e.reading = true
	}
	add := func(c history.Call) { run.Calls = append(run.Calls, c) }
	for {
		var e *ed
		for _, x := range eds {
			if x.edit < edits && (e == nil || x.at < e.at) {
				e = x
			}
		}
		if e == nil {
			break
		}
		t := e.at
		if e.reading {
			add(history.Call{Run: run.Header.Run, Editor: e.name, Session: 1, Tool: contract.ToolReadNoteTab, Note: "note-1", Tab: "markdown",
				Invoke: t, Return: t + call, Outcome: contract.OK, Version: fmt.Sprint(version)})
			if !e.reapplying || policy == "reapply" {
				e.base, e.content = version, append([]string(nil), text...)
			}
			e.expected = version
			e.reading = false
			e.at = t + call
			if !e.reapplying {
				e.at += think(e)
			}
			continue
		}
		e.tries++
		line := fmt.Sprintf("%s-%d", e.name, e.edit)
		c := history.Call{Run: run.Header.Run, Editor: e.name, Session: 1, Tool: contract.ToolEditNoteTab, Note: "note-1", Tab: "markdown",
			Operation: "replace_text", ExpectedVersion: fmt.Sprint(e.expected), Key: fmt.Sprintf("%s-%d-%d", e.name, e.edit, e.tries),
			Intent: line, Invoke: t, Return: t + call}
		if e.base != e.expected {
			c.BaseVersion = fmt.Sprint(e.base)
		}
		if guard != contract.GuardNone && e.expected != version {
			c.Outcome, c.ErrorKind, c.Version = contract.Fail, contract.KindConflict, fmt.Sprint(version)
			e.reading, e.reapplying = true, true
		} else {
			version++
			text = append(e.content, line)
			c.Outcome, c.Version = contract.OK, fmt.Sprint(version)
			e.edit, e.tries, e.reading, e.reapplying = e.edit+1, 0, true, false
			e.at = t + call + think(e)
		}
		add(c)
		e.at = max(e.at, t+call)
	}
	run.Finals = []history.Final{{Run: run.Header.Run, Note: "note-1", Version: fmt.Sprint(version),
		Tabs: []history.FinalTab{{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Text"}}, Text: strings.Join(text, "\n"), Sources: []contract.Attachment{}}}
	return run
}

// raceHistory is the published race setup's shape: seeds × three modes.
func raceHistory(seeds, edits int) (*history.History, int) {
	h := &history.History{File: "race.jsonl", Header: history.Header{Experiment: "race"}}
	ops := 0
	for _, m := range []struct {
		guard  contract.Guard
		policy string
	}{{contract.GuardNone, "reapply"}, {contract.GuardNote, "reapply"}, {contract.GuardNote, "refresh"}} {
		for s := 1; s <= seeds; s++ {
			run := raceRun(uint64(s), m.guard, m.policy, edits)
			ops += len(run.Calls)
			h.Runs = append(h.Runs, run)
		}
	}
	return h, ops
}

// The simulated race judged as the experiment would: guard none and refresh
// lose lines and overwrite stale content, reapply does neither; every register
// is linearizable and every version distinct.
func TestSimulatedRace(t *testing.T) {
	h, _ := raceHistory(2, 100)
	rep, err := Run(context.Background(), []*history.History{h}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		lossy := r.Variant.Guard == contract.GuardNone || r.Policy == "refresh"
		if r.Linearizable != results.CheckOK || r.VersionCollisions != 0 || r.Duplicates != 0 || (r.Lost > 0) != lossy || (r.StaleOverwrites > 0) != lossy {
			t.Errorf("%s: %+v", r.Run, r)
		}
		// Every lost line was overwritten by a stale write.
		if r.StaleOverwrites < r.Lost {
			t.Errorf("%s: %d lines lost but only %d stale overwrites", r.Run, r.Lost, r.StaleOverwrites)
		}
	}
}

// BenchmarkCheckRace times Run over the race setup's shape: 5 seeds × 3 modes,
// at 100, 300 and 1,000 edits per editor.
func BenchmarkCheckRace(b *testing.B) {
	for _, edits := range []int{100, 300, 1000} {
		h, ops := raceHistory(5, edits)
		b.Run(fmt.Sprintf("edits=%d/ops=%d", edits, ops), func(b *testing.B) {
			for b.Loop() {
				rep, err := Run(context.Background(), []*history.History{h}, Options{})
				if err != nil || rep.Checks[0].Verdict != results.CheckOK {
					b.Fatal(err, rep.Checks[0])
				}
			}
		})
	}
}
