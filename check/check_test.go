package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// builder makes a history of one run by hand. Calls take 10 ns each and follow
// one another unless a test gives times.
type builder struct {
	run  *history.Run
	t    int64
	keys int
}

func newRun(guard contract.Guard, format contract.VersionFormat, order contract.Order) *builder {
	return &builder{run: &history.Run{Header: history.RunHeader{Run: "r", Seed: 1,
		Variant: contract.Variant{Guard: guard, VersionFormat: format, Order: order}.WithDefaults()}}}
}

func (b *builder) add(c history.Call) *history.Call {
	c.Run = b.run.Header.Run
	if c.Session == 0 {
		c.Session = 1
	}
	if c.Note == "" {
		c.Note = "n"
	}
	if c.Invoke == 0 && c.Return == 0 {
		b.t += 10
		c.Invoke, c.Return = b.t, b.t+5
	}
	if c.IsWrite() && c.Key == "" {
		b.keys++
		c.Key = fmt.Sprintf("k%d", b.keys)
	}
	b.run.Calls = append(b.run.Calls, c)
	return &b.run.Calls[len(b.run.Calls)-1]
}

// twoEditors starts the race most tests build on: claude and human both read
// version 1, then claude commits the line claude-0 as version 2.
func twoEditors(guard contract.Guard) *builder {
	b := newRun(guard, "", "")
	b.read("claude", "1")
	b.read("human", "1")
	b.edit("claude", "1", "claude-0", "ok", "2")
	return b
}

// list adds a list_note_tabs call that saw version.
func (b *builder) list(editor, version string) {
	b.add(history.Call{Editor: editor, Tool: contract.ToolListNoteTabs, Outcome: contract.OK, Version: version})
}

// read adds a read_note_tab call that saw version, and text (empty when it
// found an emptied document).
func (b *builder) read(editor, version string) {
	b.readText(editor, version, "the text at version "+version)
}

func (b *builder) readText(editor, version, text string) {
	b.add(history.Call{Editor: editor, Tool: contract.ToolReadNoteTab, Tab: "markdown", Outcome: contract.OK, Version: version, Digest: history.TextDigest(text)})
}

// edit adds a replace_text call adding line; outcome and version are what the
// client saw: "ok", "conflict" (version the current one the reply named, ""
// for none) or "info" (the reply was lost).
func (b *builder) edit(editor, expected, line, outcome, version string) *history.Call {
	c := history.Call{Editor: editor, Tool: contract.ToolEditNoteTab, Tab: "markdown", Operation: "replace_text",
		ExpectedVersion: expected, Intent: line, Version: version, Digest: history.TextDigest("a text ending in " + line)}
	switch outcome {
	case "ok":
		c.Outcome = contract.OK
	case "conflict":
		c.Outcome, c.ErrorKind = contract.Fail, contract.KindConflict
	case "info":
		c.Outcome, c.ErrorKind = contract.Info, contract.KindReplyLost
	default:
		panic("edit: outcome " + outcome)
	}
	return b.add(c)
}

// final records the Note's end state with text made of lines.
func (b *builder) final(version string, lines ...string) {
	b.run.Finals = append(b.run.Finals, history.Final{Run: b.run.Header.Run, Note: "n", Version: version,
		Tabs: []history.FinalTab{{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Text"}},
		Text: strings.Join(append([]string{""}, lines...), "\n"), Sources: []contract.Attachment{}})
}

// finalBar records the Note's end state as a tab bar and sources, no text.
func (b *builder) finalBar(version string, tabs []history.FinalTab, sources ...contract.Attachment) {
	b.run.Finals = append(b.run.Finals, history.Final{Run: b.run.Header.Run, Note: "n", Version: version,
		Tabs: tabs, Sources: append([]contract.Attachment{}, sources...)})
}

func (b *builder) check(t *testing.T, opts Options) *results.CheckReport {
	t.Helper()
	rep, err := Run(context.Background(), []*history.History{{File: "h.jsonl", Header: history.Header{Experiment: "test"}, Runs: []*history.Run{b.run}}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// expect compares every check's verdict with want: the checks named in
// violated are violated, the others ok.
func expect(t *testing.T, rep *results.CheckReport, violated ...string) {
	t.Helper()
	for _, r := range rep.Checks {
		want := results.CheckOK
		for _, v := range violated {
			if r.Check == v {
				want = results.CheckViolated
			}
		}
		if r.Check == results.CheckEmptyReads && want == results.CheckOK && r.Verdict == results.CheckNotApplicable {
			continue // a run without reads of a text
		}
		if r.Verdict != want {
			t.Errorf("%s: %s (%d violations, %d unjudged: %s; %v), want %s", r.Check, r.Verdict, r.Violations, r.Unjudged, r.Reason, r.First, want)
		}
	}
}

// Two editors under the version check: a conflict, a re-read, a retry. Every
// check passes.
func TestLinearizableRace(t *testing.T) {
	b := twoEditors(contract.GuardNote)
	b.edit("human", "1", "human-0", "conflict", "2")
	b.read("human", "2")
	b.edit("human", "2", "human-0", "ok", "3")
	b.final("3", "claude-0", "human-0")
	rep := b.check(t, Options{})
	expect(t, rep)
	r := rep.Runs[0]
	if r.Lost != 0 || len(r.Editors) != 2 || r.Editors[0].Acknowledged != 1 || r.Registers != 1 {
		t.Errorf("run figures %+v", r)
	}
	if rep.Checks[0].Judged != 1 || rep.Checks[4].Judged != 2 {
		t.Errorf("judged: %+v", rep.Checks)
	}
}

// Without a guard the second write lands on content its editor never read:
// a stale overwrite, and the first line is lost. The register itself is
// linearizable: unconditional writes may land anywhere.
func TestStaleOverwriteWithoutGuard(t *testing.T) {
	b := twoEditors(contract.GuardNone)
	b.edit("human", "1", "human-0", "ok", "3")
	b.final("3", "human-0")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckStaleOverwrites, results.CheckLostUpdates)
	r := rep.Runs[0]
	if r.StaleOverwrites != 1 || lostBy(r, "claude") != 1 || lostBy(r, "human") != 0 {
		t.Errorf("run figures %+v", r)
	}
	if first := rep.Checks[4].First[0]; !strings.Contains(first, `human#1 edit_note_tab n/markdown adding "human-0" expected 1 → ok 3 overwrote claude#1`) {
		t.Errorf("stale overwrite described as %q", first)
	}
}

// The refresh policy passes the check with a fresh version and stale content:
// the base version gives it away.
func TestStaleOverwriteRefresh(t *testing.T) {
	b := twoEditors(contract.GuardNote)
	b.edit("human", "1", "human-0", "conflict", "2")
	b.read("human", "2")
	w := b.edit("human", "2", "human-0", "ok", "3")
	w.BaseVersion = "1"
	b.final("3", "human-0")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckStaleOverwrites, results.CheckLostUpdates)
}

// An acknowledged line missing from the final text is lost, even when every
// call fits the register.
func TestLostAcknowledgedWrite(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	b.read("claude", "1")
	b.edit("claude", "1", "claude-0", "ok", "2")
	b.read("claude", "2")
	b.edit("claude", "2", "claude-1", "ok", "3")
	b.final("3", "claude-1")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckLostUpdates)
	if got := rep.Checks[2].First[0]; !strings.Contains(got, `adding "claude-0"`) {
		t.Errorf("lost update described as %q", got)
	}
}

// A create whose reply was lost is resent with a new key: two tabs for one
// intent. The same with the same key is replayed: one tab.
func TestDuplicateCreate(t *testing.T) {
	for _, tc := range []struct {
		sameKey bool
		dups    int
	}{{false, 1}, {true, 0}} {
		t.Run(fmt.Sprintf("same key %v", tc.sameKey), func(t *testing.T) {
			b := newRun(contract.GuardNote, "", "")
			b.list("agent", "1")
			create := history.Call{Editor: "agent", Tool: contract.ToolCreateNoteTab, ExpectedVersion: "1", Key: "first",
				TabType: "sheet", Label: "Sheet 1", Intent: "tab 1", Outcome: contract.Info, ErrorKind: contract.KindReplyLost}
			b.add(create)
			b.list("agent", "2")
			resend := create
			resend.ExpectedVersion, resend.Outcome, resend.ErrorKind = "2", "ok", ""
			resend.Version, resend.TabID = "3", "sheet-5-b"
			tabs := []history.FinalTab{{TabID: "markdown", Type: "markdown", Label: "Text"}, {TabID: "sheet-4-a", Type: "sheet", Label: "Sheet 1"}}
			if tc.sameKey {
				resend.Key, resend.Replayed, resend.Version, resend.TabID = "first", true, "2", "sheet-4-a"
			} else {
				tabs = append(tabs, history.FinalTab{TabID: "sheet-5-b", Type: "sheet", Label: "Sheet 1"})
			}
			b.add(resend)
			b.finalBar("3", tabs)
			rep := b.check(t, Options{})
			if tc.dups > 0 {
				expect(t, rep, results.CheckDuplicates)
			} else {
				expect(t, rep)
			}
			if rep.Runs[0].Duplicates != tc.dups {
				t.Errorf("duplicates %d, want %d", rep.Runs[0].Duplicates, tc.dups)
			}
		})
	}
}

// Sources: one intent (a page) sent under two spellings with two keys makes two
// sources; a replay that returns another source than the key's first is caught.
func TestDuplicateSourceAndReplayMismatch(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	b.add(history.Call{Editor: "agent", Tool: contract.ToolAddNoteSource, ExpectedVersion: "1", Key: "a", URL: "https://x.example/p", Intent: "x.example/p", Outcome: contract.OK, Version: "2", SourceID: "source-1"})
	b.add(history.Call{Editor: "agent", Tool: contract.ToolAddNoteSource, ExpectedVersion: "2", Key: "b", URL: "https://www.x.example/p", Intent: "x.example/p", Outcome: contract.OK, Version: "3", SourceID: "source-2"})
	b.add(history.Call{Editor: "agent", Tool: contract.ToolAddNoteSource, ExpectedVersion: "3", Key: "a", URL: "https://x.example/p", Intent: "x.example/p", Outcome: contract.OK, Version: "3", SourceID: "source-2", Replayed: true})
	b.finalBar("3", []history.FinalTab{}, contract.Attachment{ID: "source-1", URL: "https://x.example/p"}, contract.Attachment{ID: "source-2", URL: "https://www.x.example/p"})
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckDuplicates)
	r := rep.Runs[0]
	if r.Duplicates != 1 || r.ReplayMismatches != 1 || rep.Checks[3].Violations != 2 {
		t.Errorf("duplicates %d, replay mismatches %d, violations %d; want 1, 1, 2", r.Duplicates, r.ReplayMismatches, rep.Checks[3].Violations)
	}
}

// A conflict must report the version the register holds: one that reports
// another is not linearizable, and porcupine's page shows it.
func TestConflictWithWrongCurrentVersion(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	b.read("claude", "1")
	b.edit("claude", "1", "claude-0", "ok", "2")
	b.edit("human", "1", "human-0", "conflict", "7")
	b.final("2", "claude-0")
	rep := b.check(t, Options{Visualize: true})
	for i, want := range []results.CheckVerdict{results.CheckViolated, results.CheckOK, results.CheckOK, results.CheckOK, results.CheckUnknown} {
		if got := rep.Checks[i]; got.Verdict != want {
			t.Errorf("%s: %s, want %s", got.Check, got.Verdict, want)
		}
	}
	if r := rep.Checks[4].Reason; !strings.Contains(r, "register n has no linearization to judge its writes on") {
		t.Errorf("stale-overwrites unknown because %q", r)
	}
	if !strings.Contains(rep.Checks[0].First[0], "it cannot take: human#1 edit_note_tab n/markdown adding \"human-0\" expected 1 → conflict, current 7") {
		t.Errorf("violation described as %q", rep.Checks[0].First[0])
	}
	html := string(rep.Visualization)
	if !strings.HasPrefix(html, "<!doctype html>") || !strings.Contains(html, "conflict, current 7") || !strings.Contains(html, "human#1 edit_note_tab n/markdown") {
		t.Errorf("visualization: %d bytes, starting %.40q", len(html), html)
	}
	// Without the flag, no page.
	if rep := b.check(t, Options{}); rep.Visualization != nil {
		t.Error("a visualization nobody asked for")
	}
}

// A conflict is impossible without a guard.
func TestConflictWithoutGuard(t *testing.T) {
	b := newRun(contract.GuardNone, "", "")
	b.read("claude", "1")
	b.edit("claude", "1", "claude-0", "conflict", "2")
	b.final("1")
	rep := b.check(t, Options{})
	if rep.Checks[0].Verdict != results.CheckViolated {
		t.Errorf("linearizability: %s, want violated", rep.Checks[0].Verdict)
	}
}

// A write whose reply was lost may have applied: a later read of the version
// it made fits, and so does a later read showing it did not apply.
func TestUnknownOutcomes(t *testing.T) {
	t.Run("applied", func(t *testing.T) {
		b := newRun(contract.GuardNote, "", "")
		b.read("claude", "1")
		b.edit("claude", "1", "claude-0", "info", "")
		b.read("human", "2")
		b.edit("human", "2", "human-0", "ok", "3")
		b.final("3", "claude-0", "human-0")
		expect(t, b.check(t, Options{}))
	})
	t.Run("not applied", func(t *testing.T) {
		b := newRun(contract.GuardNote, "", "")
		b.read("claude", "1")
		b.edit("claude", "1", "claude-0", "info", "")
		b.read("human", "1")
		b.edit("human", "1", "human-0", "ok", "2")
		b.read("human", "2")
		b.final("2", "human-0")
		expect(t, b.check(t, Options{}))
	})
	t.Run("could not apply", func(t *testing.T) {
		// The unknown write expected 5 while the version was 1: it cannot
		// have made the 9 a read then sees.
		b := newRun(contract.GuardNote, "", "")
		b.read("claude", "1")
		b.edit("claude", "5", "claude-0", "info", "")
		b.read("human", "9")
		b.final("9")
		expect(t, b.check(t, Options{}), results.CheckLinearizability)
	})
	t.Run("a version cannot come back", func(t *testing.T) {
		// An unknown write applied leaves a version other than the one it
		// replaced: a read of the old version after a later read of a new
		// one does not fit.
		b := newRun(contract.GuardNote, "", "")
		b.read("claude", "1")
		b.edit("claude", "1", "claude-0", "info", "")
		b.read("human", "1")
		b.read("human", "4")
		b.read("human", "1")
		b.final("1")
		expect(t, b.check(t, Options{}), results.CheckLinearizability)
	})
}

// Millisecond versions: two writes in one millisecond commit the same version.
// The register stays linearizable; the versions check and the lost line give
// it away, and the time order of the calls shows the overwrite was stale.
func TestMillisecondVersionCollision(t *testing.T) {
	b := newRun(contract.GuardNote, contract.FormatMS, "")
	b.read("claude", "t1")
	b.read("human", "t1")
	b.edit("human", "t1", "human-0", "ok", "t2")
	b.read("claude", "t2") // not claude's base: its content came from t1
	w := b.edit("claude", "t2", "claude-0", "ok", "t2")
	w.BaseVersion = "t1"
	b.final("t2", "claude-0")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckVersions, results.CheckLostUpdates, results.CheckStaleOverwrites)
	if rep.Runs[0].VersionCollisions != 1 {
		t.Errorf("version collisions %d, want 1", rep.Runs[0].VersionCollisions)
	}

	// The same in the fast experiment's shape: claude read t2 before the
	// person's write, which kept t2; claude's write passes the check.
	b = newRun(contract.GuardNote, contract.FormatMS, "")
	b.read("human", "t1")
	b.edit("human", "t1", "human-0", "ok", "t2")
	b.read("claude", "t2")
	b.read("human", "t2")
	b.edit("human", "t2", "human-1", "ok", "t2")
	b.edit("claude", "t2", "claude-0", "ok", "t3")
	b.final("t3", "human-0", "claude-0")
	rep = b.check(t, Options{})
	expect(t, rep, results.CheckVersions, results.CheckLostUpdates, results.CheckStaleOverwrites)
	if r := rep.Runs[0]; lostBy(r, "human") != 1 || r.StaleOverwrites != 1 || r.VersionCollisions != 1 {
		t.Errorf("run figures %+v", r)
	}

	// Under us-suffix versions the same interleaving conflicts instead.
	b = newRun(contract.GuardNote, contract.FormatUSSuffix, "")
	b.read("human", "a")
	b.edit("human", "a", "human-0", "ok", "b")
	b.read("claude", "b")
	b.read("human", "b")
	b.edit("human", "b", "human-1", "ok", "c")
	b.edit("claude", "b", "claude-0", "conflict", "c")
	b.read("claude", "c")
	b.edit("claude", "c", "claude-0", "ok", "d")
	b.final("d", "human-0", "human-1", "claude-0")
	expect(t, b.check(t, Options{}))
}

// Under version-first a replay passed the version compare first: a replay
// while the version moved on does not fit. Under key-first it does.
func TestReplayOrder(t *testing.T) {
	for _, order := range []contract.Order{contract.OrderKeyFirst, contract.OrderVersionFirst} {
		b := newRun(contract.GuardNote, "", order)
		b.list("agent", "1")
		b.add(history.Call{Editor: "agent", Tool: contract.ToolCreateNoteTab, ExpectedVersion: "1", Key: "a", TabType: "sheet", Label: "S", Outcome: contract.OK, Version: "2", TabID: "sheet-4-a"})
		b.add(history.Call{Editor: "agent", Tool: contract.ToolCreateNoteTab, ExpectedVersion: "1", Key: "a", TabType: "sheet", Label: "S", Outcome: contract.OK, Version: "2", TabID: "sheet-4-a", Replayed: true})
		b.finalBar("2", []history.FinalTab{{TabID: "sheet-4-a", Type: "sheet", Label: "S"}})
		rep := b.check(t, Options{})
		if order == contract.OrderVersionFirst {
			expect(t, rep, results.CheckLinearizability)
		} else {
			expect(t, rep)
		}
	}
}

// Under guard tab each tab is a register of its own; writes to two tabs with
// the same version numbers neither collide nor conflict.
func TestTabRegisters(t *testing.T) {
	b := newRun(contract.GuardTab, "", "")
	b.read("claude", "1")
	b.add(history.Call{Editor: "human", Tool: contract.ToolReadNoteTab, Tab: "sheet-4-a", Outcome: contract.OK, Version: "1"})
	b.edit("claude", "1", "claude-0", "ok", "2")
	b.add(history.Call{Editor: "human", Tool: contract.ToolEditNoteTab, Tab: "sheet-4-a", Operation: "sheet_set_range", ExpectedVersion: "1",
		At: &history.Cell{Row: 0}, Intent: "human-0", Outcome: contract.OK, Version: "2"})
	b.final("1", "claude-0")
	f := &b.run.Finals[0]
	f.Tabs = append(f.Tabs, history.FinalTab{TabID: "sheet-4-a", Type: "sheet", Label: "Data"})
	f.Sheets = map[string][]contract.Sheet{"sheet-4-a": {{SheetID: "s1", Cells: [][]any{{"human-0"}}}}}
	rep := b.check(t, Options{})
	expect(t, rep)
	if rep.Runs[0].Registers != 2 {
		t.Errorf("registers %d, want 2", rep.Runs[0].Registers)
	}
	// The cell overwritten by something else is lost.
	f.Sheets["sheet-4-a"][0].Cells[0][0] = "other"
	expect(t, b.check(t, Options{}), results.CheckLostUpdates)
}

// Out of time: every check says unknown, none says ok.
func TestTimeout(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	b.read("claude", "1")
	b.edit("claude", "1", "claude-0", "ok", "2")
	b.final("2", "claude-0")
	rep := b.check(t, Options{Timeout: time.Nanosecond})
	for _, r := range rep.Checks {
		if r.Verdict != results.CheckUnknown || !strings.Contains(r.Reason, "timed out after 1ns") {
			t.Errorf("%s: %s (%s), want unknown, timed out", r.Check, r.Verdict, r.Reason)
		}
	}
}

// A cancelled context is an error, not a verdict.
func TestCancelled(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	b.read("claude", "1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, []*history.History{{File: "h", Runs: []*history.Run{b.run}}}, Options{}); err == nil {
		t.Error("no error from a cancelled run")
	}
}

// lostBy returns the intents of editor the final state of r lacks, 0 when
// the editor made no call.
func lostBy(r results.CheckRun, editor string) int {
	for _, e := range r.Editors {
		if e.Editor == editor {
			return e.Lost
		}
	}
	return 0
}

// conflict adds a write of line by editor that conflicted; current is the
// version the reply named, "" for none.
func (b *builder) conflict(editor, expected, line, current string) *history.Call {
	return b.edit(editor, expected, line, "conflict", current)
}

// A conflict whose reply names no current version (a vault's
// REVISION_CONFLICT, an SQL UPDATE … WHERE version = ? that matched no row)
// is legal when the register's version differs from the one expected, and
// binds nothing; it is not legal while the version is the expected one, nor
// without a guard.
func TestConflictWithoutCurrentVersion(t *testing.T) {
	t.Run("legal", func(t *testing.T) {
		b := twoEditors(contract.GuardNote)
		b.conflict("human", "1", "human-0", "")
		b.read("human", "2")
		b.edit("human", "2", "human-0", "ok", "3")
		b.final("3", "claude-0", "human-0")
		expect(t, b.check(t, Options{}))
	})
	t.Run("binds nothing", func(t *testing.T) {
		// An info write may have moved the version: the conflict says it
		// differs from 1, not what it is; a read then sees the 2 it made.
		b := newRun(contract.GuardNote, "", "")
		b.read("claude", "1")
		b.edit("claude", "1", "claude-0", "info", "")
		b.conflict("human", "1", "human-0", "")
		b.read("human", "2")
		b.final("2", "claude-0")
		expect(t, b.check(t, Options{}))
	})
	t.Run("the version was the expected one", func(t *testing.T) {
		b := newRun(contract.GuardNote, "", "")
		b.read("claude", "1")
		b.conflict("human", "1", "human-0", "")
		b.final("1")
		rep := b.check(t, Options{})
		expect(t, rep, results.CheckLinearizability)
		if got := rep.Checks[0].First[0]; !strings.Contains(got, "it cannot take: human#1 edit_note_tab n/markdown adding \"human-0\" expected 1 → conflict (no current version named)") {
			t.Errorf("violation described as %q", got)
		}
	})
	t.Run("no guard", func(t *testing.T) {
		b := newRun(contract.GuardNone, "", "")
		b.read("claude", "1")
		b.conflict("claude", "1", "claude-0", "")
		b.final("1")
		expect(t, b.check(t, Options{}), results.CheckLinearizability)
	})
}

// An info read observes nothing: whatever version it carries binds nothing.
// An info write of any kind (exhausted retries, busy, among them) may have
// applied.
func TestInfoOutcomes(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	b.read("claude", "1")
	b.add(history.Call{Editor: "human", Tool: contract.ToolReadNoteTab, Tab: "markdown", Outcome: contract.Info, ErrorKind: contract.KindTimeout, Version: "9"})
	b.add(history.Call{Editor: "claude", Tool: contract.ToolEditNoteTab, Tab: "markdown", Operation: "replace_text", ExpectedVersion: "1",
		Intent: "claude-0", Outcome: contract.Info, ErrorKind: contract.KindBusy})
	b.read("human", "2")
	b.edit("human", "2", "human-0", "ok", "3")
	b.final("3", "claude-0", "human-0")
	expect(t, b.check(t, Options{}))
}

// Digest and opaque versions have no order: the versions check does not
// apply to their runs. Alone, such runs make it n/a, with the reason, which
// is neither ok nor unknown; beside a run of counter versions it judges that
// one, and says which it did not apply to.
func TestVersionsNotApplicable(t *testing.T) {
	digest := func(format contract.VersionFormat) *history.Run {
		// Two commits of the same content share a digest.
		b := newRun(contract.GuardNote, format, "")
		b.read("claude", "sha256:aa")
		b.edit("claude", "sha256:aa", "claude-0", "ok", "sha256:bb")
		b.read("claude", "sha256:bb")
		b.edit("claude", "sha256:bb", "claude-0", "ok", "sha256:aa")
		b.final("sha256:aa", "claude-0")
		return b.run
	}
	for _, format := range []contract.VersionFormat{contract.FormatDigest, contract.FormatOpaque} {
		rep, err := Run(context.Background(), []*history.History{{File: "h.jsonl", Runs: []*history.Run{digest(format)}}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := result(t, rep, results.CheckVersions)
		if v.Verdict != results.CheckNotApplicable || v.Judged != 0 || v.NotApplicable != 1 || v.Violations != 0 ||
			!strings.HasPrefix(v.Reason, "not applicable to h.jsonl, run r: "+string(format)+" versions ") {
			t.Errorf("%s: versions %+v", format, v)
		}
		if r := rep.Runs[0]; r.Versions != results.CheckNotApplicable || r.VersionCollisions != 0 {
			t.Errorf("%s: run %+v", format, r)
		}
		if violated, unknown := rep.Failed(); len(violated)+len(unknown) != 0 {
			t.Errorf("%s: failed %v, unknown %v", format, violated, unknown)
		}
	}
	counter := twoEditors(contract.GuardNote)
	counter.run.Header.Run = "c"
	counter.final("2", "claude-0")
	rep, err := Run(context.Background(), []*history.History{{File: "h.jsonl", Runs: []*history.Run{digest(contract.FormatDigest), counter.run}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := result(t, rep, results.CheckVersions); v.Verdict != results.CheckOK || v.Judged != 1 || v.NotApplicable != 1 || !strings.Contains(v.Reason, "digest versions are the same for the same content") {
		t.Errorf("versions over a digest and a counter run: %+v", v)
	}
	if rep.Runs[0].Versions != results.CheckNotApplicable || rep.Runs[1].Versions != results.CheckOK {
		t.Errorf("runs: %s, %s", rep.Runs[0].Versions, rep.Runs[1].Versions)
	}
}

// Histories without a run leave nothing to judge: every check unknown, none
// ok. A history cut short is judged on what it holds: a violation in it
// stands, every other check is unknown.
func TestNothingToJudgeAndCutShort(t *testing.T) {
	rep, err := Run(context.Background(), []*history.History{{File: "h.jsonl"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Empty {
		t.Error("no run, and not empty")
	}
	for _, r := range rep.Checks {
		if r.Verdict != results.CheckUnknown || r.Reason != "nothing to judge: the histories hold no run" {
			t.Errorf("%s: %s (%s), want unknown, nothing to judge", r.Check, r.Verdict, r.Reason)
		}
	}

	b := twoEditors(contract.GuardNone)
	b.edit("human", "1", "human-0", "ok", "3")
	b.final("3", "human-0")
	rep, err = Run(context.Background(), []*history.History{{File: "h.jsonl", Runs: []*history.Run{b.run}, Cut: true, Lines: 9}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cut) != 1 || rep.Cut[0] != "h.jsonl after line 9" {
		t.Errorf("cut %q", rep.Cut)
	}
	for _, r := range rep.Checks {
		want := results.CheckUnknown
		if r.Check == results.CheckLostUpdates || r.Check == results.CheckStaleOverwrites {
			want = results.CheckViolated
		}
		if r.Verdict != want || !strings.Contains(r.Reason, "cut short (no end line): h.jsonl after line 9; what it lacks was not judged") {
			t.Errorf("%s: %s (%s), want %s, cut short", r.Check, r.Verdict, r.Reason, want)
		}
	}
}

// A violation is described with the faults of its run that came before it:
// for a lost write, those from the write on, as the final state was read
// after them all; the run counts its faults; porcupine's page marks them.
func TestFaultsBeforeViolations(t *testing.T) {
	b := twoEditors(contract.GuardNone) // claude's write returns at 35
	b.run.Faults = []history.Fault{
		{Run: "r", Kind: history.FaultPause, Start: 1, End: 2},
		{Run: "r", Kind: history.FaultKill, Start: 1_200_000_000, End: 1_200_000_000, PID: 4711},
	}
	b.add(history.Call{Editor: "human", Tool: contract.ToolEditNoteTab, Tab: "markdown", Operation: "replace_text", ExpectedVersion: "1",
		Intent: "human-0", Outcome: contract.OK, Version: "3", Invoke: 1_300_000_000, Return: 1_300_000_005})
	b.final("3", "human-0")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckLostUpdates, results.CheckStaleOverwrites)
	if got := result(t, rep, results.CheckLostUpdates).First[0]; !strings.HasSuffix(got, `adding "claude-0" expected 1 → ok 2; then human#1 edit_note_tab n/markdown adding "human-0" expected 1 → ok 3 replaced the text with one built on a version before it; after kill at 1.20 s (pid 4711)`) {
		t.Errorf("lost update described as %q", got)
	}
	if got := result(t, rep, results.CheckStaleOverwrites).First[0]; !strings.HasSuffix(got, "; after pause from 0.00 s to 0.00 s and kill at 1.20 s (pid 4711)") {
		t.Errorf("stale overwrite described as %q", got)
	}
	if p := result(t, rep, results.CheckLostUpdates).Proofs[0]; len(p.Ops) != 2 || p.Ops[0].Intent != "claude-0" || p.Ops[1].Intent != "human-0" || len(p.Faults) != 2 {
		t.Errorf("the proof of the lost update: %+v", p)
	}
	if rep.Runs[0].Faults != 2 {
		t.Errorf("faults %d, want 2", rep.Runs[0].Faults)
	}

	// A proof shows the faults that bear on its operations: the one under way
	// while they ran (the kill) and the last one before them (the pause), not
	// one that began after them, before the final read.
	after := b.run.Faults
	b.run.Faults = append(slices.Clone(after), history.Fault{Run: "r", Kind: history.FaultPause, Start: 1_400_000_000, End: 1_500_000_000})
	b.run.Faults = append([]history.Fault{{Run: "r", Kind: history.FaultPause, Start: 0, End: 1}}, b.run.Faults...)
	if p := result(t, b.check(t, Options{}), results.CheckLostUpdates).Proofs[0]; len(p.Faults) != 2 ||
		p.Faults[0].StartNS != 1 || p.Faults[1].Kind != history.FaultKill {
		t.Errorf("the proof's faults: %+v, want the pause from 1 ns and the kill", p.Faults)
	}
	b.run.Faults = after

	// More faults than a description names: the last three, and how many.
	for i := range 3 {
		b.run.Faults = append(b.run.Faults, history.Fault{Run: "r", Kind: history.FaultLoseReplies, Start: int64(1_210_000_000 + i)})
	}
	if got := b.check(t, Options{}).Checks[2].First[0]; !strings.HasSuffix(got, "; after 4 faults, the last lose-replies at 1.21 s, lose-replies at 1.21 s and lose-replies at 1.21 s") {
		t.Errorf("lost update described as %q", got)
	}

	// A linearizability violation after a kill: the page marks it.
	l := newRun(contract.GuardNote, "", "")
	l.read("claude", "1")
	l.run.Faults = []history.Fault{{Run: "r", Kind: history.FaultKill, Start: 17, End: 17, PID: 4711}}
	l.conflict("human", "1", "human-0", "")
	l.final("1")
	rep = l.check(t, Options{Visualize: true})
	if got := rep.Checks[0].First[0]; !strings.HasSuffix(got, "; after kill at 0.00 s (pid 4711)") {
		t.Errorf("linearizability violation described as %q", got)
	}
	if html := string(rep.Visualization); !strings.Contains(html, "kill at 0.00 s (pid 4711)") {
		t.Errorf("the page does not mark the fault: %d bytes", len(html))
	}
}

// Creates whose server named no version (a profile that extracts none), two
// of them: no version committed twice, the tabs judged by their IDs.
func TestCreatesWithoutVersions(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	for _, label := range []string{"Sheet 1", "Sheet 2"} {
		b.add(history.Call{Editor: "agent", Tool: contract.ToolCreateNoteTab, Key: label,
			TabType: "sheet", Label: label, Intent: label, Outcome: contract.OK, TabID: label})
	}
	b.finalBar("1", []history.FinalTab{{TabID: "markdown", Type: "markdown", Label: "Text"},
		{TabID: "Sheet 1", Type: "sheet", Label: "Sheet 1"}, {TabID: "Sheet 2", Type: "sheet", Label: "Sheet 2"}})
	rep := b.check(t, Options{})
	expect(t, rep)
	if r := rep.Runs[0]; r.VersionCollisions != 0 || r.Duplicates != 0 {
		t.Errorf("%+v", r)
	}
}

// A read that returned the version a committed write made saw that write,
// though the model may linearize it first: a source add whose reply was lost
// leaves a version nobody saw, the read names it, and the person's info
// write lets claude's write (expected 1) bind after it. Judged at that
// place, the person's write built on the read would overwrite claude's; it
// does not. A kill -9 test met this history.
func TestReadFollowsTheWriteOfItsVersion(t *testing.T) {
	b := newRun(contract.GuardNote, "", "")
	b.read("claude", "1")
	b.read("human", "1")
	b.add(history.Call{Editor: "agent", Session: 3, Tool: contract.ToolAddNoteSource, ExpectedVersion: "1", Key: "s", URL: "https://x.example/p", Intent: "x.example/p",
		Outcome: contract.Info, ErrorKind: contract.KindReplyLost, Invoke: 30, Return: 31})
	b.add(history.Call{Editor: "human", Session: 2, Tool: contract.ToolReadNoteTab, Tab: "markdown", Outcome: contract.OK, Version: "2", Invoke: 35, Return: 60})
	b.add(history.Call{Editor: "claude", Tool: contract.ToolEditNoteTab, Tab: "markdown", Operation: "replace_text", ExpectedVersion: "1", Key: "c", Intent: "claude-0",
		Outcome: contract.OK, Version: "2", Invoke: 40, Return: 65})
	b.add(history.Call{Editor: "human", Session: 2, Tool: contract.ToolEditNoteTab, Tab: "markdown", Operation: "replace_text", ExpectedVersion: "2", Key: "h", Intent: "human-0",
		Outcome: contract.Info, ErrorKind: contract.KindDied, Invoke: 61, Return: 70})
	b.add(history.Call{Editor: "human", Session: 2, Tool: contract.ToolEditNoteTab, Tab: "markdown", Operation: "replace_text", ExpectedVersion: "2", Key: "h", Intent: "human-0",
		Outcome: contract.OK, Version: "3", Invoke: 71, Return: 80})
	b.add(history.Call{Editor: "agent", Session: 3, Tool: contract.ToolAddNoteSource, ExpectedVersion: "1", Key: "s", URL: "https://x.example/p", Intent: "x.example/p",
		Outcome: contract.Fail, ErrorKind: contract.KindConflict, Version: "3", Invoke: 81, Return: 85})
	b.final("3", "claude-0", "human-0")
	rep := b.check(t, Options{})
	if r := result(t, rep, results.CheckStaleOverwrites); r.Verdict != results.CheckOK || r.Judged != 2 {
		t.Errorf("stale-overwrites %+v", r)
	}
	if r := result(t, rep, results.CheckLinearizability); r.Verdict != results.CheckOK {
		t.Errorf("linearizability %+v", r)
	}
}

// A read that returned an empty document after lines were written and
// acknowledged found an emptied document (a server that truncates then
// writes); one before any write did not, nor one after a write of an empty
// text.
func TestEmptyReads(t *testing.T) {
	b := twoEditors(contract.GuardNone) // claude's write of claude-0 acknowledged
	b.readText("human", "2", "")
	b.final("2", "claude-0")
	rep := b.check(t, Options{})
	expect(t, rep, results.CheckEmptyReads)
	if r := result(t, rep, results.CheckEmptyReads); r.Violations != 1 || !strings.Contains(r.First[0], "read an empty document") || rep.Runs[0].EmptyReads != 1 {
		t.Errorf("%+v", r)
	}

	b = newRun(contract.GuardNone, "", "")
	b.readText("claude", "1", "") // before any write: the Note starts empty
	b.edit("claude", "1", "claude-0", "ok", "2")
	b.final("2", "claude-0")
	expect(t, b.check(t, Options{}))

	b = twoEditors(contract.GuardNone)
	w := b.edit("human", "2", "", "ok", "3")
	w.Digest = history.EmptyDigest // the person cleared the text
	b.readText("claude", "3", "")
	b.final("3")
	rep = b.check(t, Options{})
	if r := result(t, rep, results.CheckEmptyReads); r.Verdict != results.CheckOK {
		t.Errorf("a read after a write of an empty text: %+v", r)
	}
}

// A proof names the server's own tool that stood for each of its calls when
// the run was made through a profile, and only then.
func TestProofNamesTheServersTool(t *testing.T) {
	for _, tools := range []map[string]string{nil, {contract.ToolEditNoteTab: "write_file", contract.ToolReadNoteTab: "read_text_file"}} {
		b := twoEditors(contract.GuardNone)
		b.run.Header.ServerTools = tools
		b.edit("human", "1", "human-0", "ok", "3")
		b.final("3", "human-0")
		p := result(t, b.check(t, Options{}), results.CheckLostUpdates).Proofs[0]
		if len(p.Ops) != 2 {
			t.Fatalf("the proof of the lost update: %+v", p)
		}
		for _, op := range p.Ops {
			if op.Tool != contract.ToolEditNoteTab || op.ServerTool != tools[contract.ToolEditNoteTab] {
				t.Errorf("server tools %v: an op says tool %q, the server's %q", tools, op.Tool, op.ServerTool)
			}
		}
	}
}
