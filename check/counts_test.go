package check

import (
	"fmt"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// Every count the checker makes has a test here with more than one of its
// kind, so that a count off by one, or one that ignores a kind, fails: the
// lost intents per editor (lines, tabs, sources, cells), the duplicates
// (tabs, sources, lines), the stale overwrites and the version collisions.

// result returns the Result of the named check.
func result(t *testing.T, rep *results.CheckReport, name string) results.CheckResult {
	t.Helper()
	for _, r := range rep.Checks {
		if r.Check == name {
			return r
		}
	}
	t.Fatalf("no %s check in the report", name)
	return results.CheckResult{}
}

// counts fails unless the named check found violations violations in judged
// items.
func counts(t *testing.T, rep *results.CheckReport, name string, judged, violations int) {
	t.Helper()
	r := result(t, rep, name)
	if r.Judged != judged || r.Violations != violations {
		t.Errorf("%s: %d judged, %d violations (%v); want %d and %d", name, r.Judged, r.Violations, r.First, judged, violations)
	}
}

// runCounts is counts, and checks that the run's own figure for the check,
// read by figure, is its number of violations.
func runCounts(t *testing.T, rep *results.CheckReport, name string, figure func(results.CheckRun) int, judged, violations int) {
	t.Helper()
	counts(t, rep, name, judged, violations)
	if got := figure(rep.Runs[0]); got != violations {
		t.Errorf("%s: the run counts %d, want %d", name, got, violations)
	}
}

// chain adds, one after the other, a read and a write of each line by its
// editor (claude-* lines by claude, the others by human), each read seeing the
// version the write before made: no write races another. It returns the last
// version.
func (b *builder) chain(from int, lines ...string) int {
	v := from
	for _, l := range lines {
		editor := "human"
		if l[:6] == "claude" {
			editor = "claude"
		}
		b.read(editor, fmt.Sprint(v))
		b.edit(editor, fmt.Sprint(v), l, "ok", fmt.Sprint(v+1))
		v++
	}
	return v
}

// Acknowledged lines missing from the final text are counted per editor and
// per intent: three of claude's five lines and one of human's two are gone;
// a replay of a lost line does not count it twice.
func TestLostLinesCountedPerEditorAndIntent(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	v := b.chain(1, "claude-0", "human-0", "claude-1", "claude-2", "human-1", "claude-3", "claude-4")
	// claude resends claude-4 with its key: replayed, the same intent.
	last := b.run.Calls[len(b.run.Calls)-1]
	replay := last
	replay.Invoke, replay.Return, replay.Replayed = 0, 0, true
	b.add(replay)
	b.final(fmt.Sprint(v), "claude-0", "human-1", "claude-3")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckLostUpdates)
	r := rep.Runs[0]
	if lostBy(r, "claude") != 3 || lostBy(r, "human") != 1 || r.Lost != 4 {
		t.Errorf("lost claude %d, human %d, all %d; want 3, 1, 4", lostBy(r, "claude"), lostBy(r, "human"), r.Lost)
	}
	if r.Editors[0].Acknowledged != 5 || r.Editors[1].Acknowledged != 2 {
		t.Errorf("acknowledged %+v; want claude 5, human 2", r.Editors)
	}
	counts(t, rep, results.CheckLostUpdates, 7, 4)
}

// Acknowledged tabs, sources and cells missing from the final state are lost
// intents too: one of two tabs, two of three sources, one of two cells.
func TestLostTabsSourcesAndCells(t *testing.T) {
	b := newRun(contract.GuardNone, "", "")
	tab := func(n int, id string) {
		b.add(history.Call{Editor: "agent", Tool: contract.ToolCreateNoteTab, ExpectedVersion: "1", TabType: "sheet",
			Label: fmt.Sprintf("Tab %d", n), Intent: fmt.Sprintf("tab %d", n), Outcome: contract.OK, Version: fmt.Sprint(n + 1), TabID: id})
	}
	tab(1, "sheet-4-a")
	tab(2, "sheet-5-b")
	for n := 1; n <= 3; n++ {
		b.add(history.Call{Editor: "agent", Tool: contract.ToolAddNoteSource, ExpectedVersion: "1", URL: fmt.Sprintf("https://x.example/%d", n),
			Intent: fmt.Sprintf("page %d", n), Outcome: contract.OK, Version: fmt.Sprint(n + 3), SourceID: fmt.Sprintf("source-%d", n)})
	}
	for row := 0; row < 2; row++ {
		b.add(history.Call{Editor: "human", Tool: contract.ToolEditNoteTab, Tab: "sheet-4-a", Operation: "sheet_set_range", ExpectedVersion: "1",
			At: &history.Cell{Row: row}, Intent: fmt.Sprintf("human-%d", row), Outcome: contract.OK, Version: fmt.Sprint(row + 7)})
	}
	b.finalBar("8", []history.FinalTab{{TabID: "markdown", Type: "markdown", Label: "Text"}, {TabID: "sheet-4-a", Type: "sheet", Label: "Tab 1"}},
		contract.Attachment{ID: "source-2", URL: "https://x.example/2"})
	b.run.Finals[0].Sheets = map[string][]contract.Sheet{"sheet-4-a": {{SheetID: "s1", Cells: [][]any{{"human-0"}, {"human-9"}}}}}
	rep := b.check(t, Options{})
	r := rep.Runs[0]
	if lostBy(r, "agent") != 3 || lostBy(r, "human") != 1 || r.Lost != 4 {
		t.Errorf("lost agent %d, human %d, all %d; want 3, 1, 4", lostBy(r, "agent"), lostBy(r, "human"), r.Lost)
	}
	counts(t, rep, results.CheckLostUpdates, 7, 4)
}

// A line of an intent that the final text holds more than once is a
// duplicate for every copy beyond the first: claude-0 twice and human-0 three
// times make three; a line no intent added (an empty one) is not counted.
func TestDuplicateLinesCounted(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	v := b.chain(1, "claude-0", "human-0", "claude-1")
	b.final(fmt.Sprint(v), "claude-0", "human-0", "", "claude-0", "human-0", "claude-1", "", "human-0")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckDuplicates)
	runCounts(t, rep, results.CheckDuplicates, func(r results.CheckRun) int { return r.Duplicates }, 3, 3)
}

// Tabs and sources beyond one per intent are duplicates, each one counted: an
// intent resent with new keys made three tabs (two duplicates); a page cited
// under three spellings made three sources (two duplicates); another intent
// made its one tab.
func TestDuplicateTabsAndSourcesCounted(t *testing.T) {
	b := newRun(contract.GuardNone, "", "")
	tabs := []history.FinalTab{{TabID: "markdown", Type: "markdown", Label: "Text"}}
	for i, id := range []string{"sheet-4-a", "sheet-5-b", "sheet-6-c"} {
		b.add(history.Call{Editor: "agent", Tool: contract.ToolCreateNoteTab, ExpectedVersion: "1", TabType: "sheet", Label: "Plan",
			Intent: "tab plan", Outcome: contract.OK, Version: fmt.Sprint(i + 2), TabID: id})
		tabs = append(tabs, history.FinalTab{TabID: id, Type: "sheet", Label: "Plan"})
	}
	b.add(history.Call{Editor: "agent", Tool: contract.ToolCreateNoteTab, ExpectedVersion: "1", TabType: "slides", Label: "Deck",
		Intent: "tab deck", Outcome: contract.OK, Version: "5", TabID: "slides-7-d"})
	tabs = append(tabs, history.FinalTab{TabID: "slides-7-d", Type: "slides", Label: "Deck"})
	var sources []contract.Attachment
	for i, u := range []string{"https://x.example/p", "https://www.x.example/p", "http://x.example/p"} {
		id := fmt.Sprintf("source-%d", i+1)
		b.add(history.Call{Editor: "agent", Tool: contract.ToolAddNoteSource, ExpectedVersion: "1", URL: u, Intent: "x.example/p",
			Outcome: contract.OK, Version: fmt.Sprint(i + 6), SourceID: id})
		sources = append(sources, contract.Attachment{ID: id, URL: u})
	}
	b.finalBar("8", tabs, sources...)
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckDuplicates)
	runCounts(t, rep, results.CheckDuplicates, func(r results.CheckRun) int { return r.Duplicates }, 3, 4) // two tabs, two sources
}

// Every write that replaced content another acknowledged write changed after
// its read is one stale overwrite: without a guard, human overwrites claude's
// first line, then claude overwrites human's; the third write read the latest
// version and is not stale.
func TestStaleOverwritesCounted(t *testing.T) {
	b := newRun(contract.GuardNone, "", "")
	b.read("claude", "1")
	b.read("human", "1")
	b.edit("claude", "1", "claude-0", "ok", "2")
	b.edit("human", "1", "human-0", "ok", "3") // stale: read 1, claude wrote 2
	b.read("human", "3")
	b.edit("claude", "1", "claude-1", "ok", "4") // stale: read 1, two writes since
	b.edit("human", "3", "human-1", "ok", "5")   // stale: read 3, claude wrote 4
	b.read("claude", "5")
	b.edit("claude", "5", "claude-2", "ok", "6") // read the latest: not stale
	b.final("6", "human-1", "claude-2")
	rep := b.check(t, Options{})
	runCounts(t, rep, results.CheckStaleOverwrites, func(r results.CheckRun) int { return r.StaleOverwrites }, 5, 3)
}

// Every committed write that made a version another committed write of the
// register made, or kept the version it expected, is one collision: the first
// write kept the Note's first version, and a later one made a version an
// earlier write had made.
func TestVersionCollisionsCounted(t *testing.T) {
	b := newRun(contract.GuardNote, contract.FormatMS, "")
	b.read("claude", "t1")
	b.edit("claude", "t1", "claude-0", "ok", "t1") // kept the version it expected
	b.read("claude", "t1")
	b.edit("claude", "t1", "claude-1", "ok", "t2")
	b.read("claude", "t2")
	b.edit("claude", "t2", "claude-2", "ok", "t3")
	b.read("human", "t3")
	b.edit("human", "t3", "human-0", "ok", "t2") // t2 again
	b.read("human", "t2")
	b.edit("human", "t2", "human-1", "ok", "t4")
	b.final("t4", "claude-0", "claude-1", "claude-2", "human-0", "human-1")
	rep := b.check(t, Options{})
	runCounts(t, rep, results.CheckVersions, func(r results.CheckRun) int { return r.VersionCollisions }, 5, 2)
}
