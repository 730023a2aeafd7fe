package check

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// served builds a served history of one run by hand, as notesbench serve
// records one: the person's calls in session 0, each client's in its own,
// every text write with what it adds to and drops from its session's last
// view. Calls take 5 ns and follow one another.
type servedRun struct {
	run  *history.Run
	t    int64
	keys int
}

func newServed() *servedRun {
	return &servedRun{run: &history.Run{Header: history.RunHeader{Run: "serve", Variant: contract.Variant{}.WithDefaults()}}}
}

// actor is an editor: the person, or an agent's name, version and session.
type actor struct {
	name, version string
	session       int
}

var (
	person   = actor{history.PersonEditor, "", history.PersonSession}
	careful  = actor{"careful", "1.0", 1}
	careless = actor{"careless", "2.0", 2}
)

func (s *servedRun) add(w actor, c history.Call) *history.Call {
	c.Run, c.Editor, c.ClientVersion, c.Session = "serve", w.name, w.version, w.session
	if c.Note == "" {
		c.Note = "n"
	}
	s.t += 10
	c.Invoke, c.Return = s.t, s.t+5
	if c.IsWrite() && c.Key == "" {
		s.keys++
		c.Key = fmt.Sprintf("k%d", s.keys)
	}
	s.run.Calls = append(s.run.Calls, c)
	return &s.run.Calls[len(s.run.Calls)-1]
}

func (s *servedRun) read(w actor, version string) {
	s.add(w, history.Call{Tool: contract.ToolReadNoteTab, Tab: "markdown", Outcome: contract.OK, Version: version})
}

// write adds a replace_text: expected, the view it is against (read), the
// view its content came from when older (base), what it adds and drops,
// and its outcome: "ok VERSION", "conflict VERSION" or "info".
func (s *servedRun) write(w actor, expected, read, base string, adds, drops []string, outcome string) *history.Call {
	c := history.Call{Tool: contract.ToolEditNoteTab, Tab: "markdown", Operation: string(contract.OpReplaceText),
		ExpectedVersion: expected, ReadVersion: read, BaseVersion: base, Adds: adds, Drops: drops}
	kind, version, _ := strings.Cut(outcome, " ")
	switch kind {
	case "ok":
		c.Outcome, c.Version = contract.OK, version
	case "conflict":
		c.Outcome, c.ErrorKind, c.Version = contract.Fail, contract.KindConflict, version
	case "info":
		c.Outcome, c.ErrorKind = contract.Info, contract.KindReplyLost
	}
	if w == person && len(adds) == 1 {
		c.Intent = adds[0]
	}
	return s.add(w, c)
}

func (s *servedRun) final(version string, lines ...string) {
	s.run.Finals = append(s.run.Finals, history.Final{Run: "serve", Note: "n", Version: version,
		Tabs: []history.FinalTab{{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Note"}},
		Text: strings.Join(lines, "\n"), Sources: []contract.Attachment{}})
}

func (s *servedRun) check(t *testing.T) *results.CheckReport {
	t.Helper()
	rep, err := Run(context.Background(), []*history.History{{File: "h.jsonl",
		Header: history.Header{Experiment: history.ExperimentServe}, Runs: []*history.Run{s.run}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// agentNamed returns the result of the agent named name.
func agentNamed(t *testing.T, rep *results.CheckReport, name string) results.AgentResult {
	t.Helper()
	for _, a := range rep.Agents {
		if a.Agent == name {
			return a
		}
	}
	t.Fatalf("no agent %s in %+v", name, rep.Agents)
	return results.AgentResult{}
}

func l(lines ...string) []string { return lines }

// expectServed is expect, where person-lines may be n/a: the run has no
// person's line.
func expectServed(t *testing.T, rep *results.CheckReport, violated ...string) {
	t.Helper()
	for i, r := range rep.Checks {
		if r.Check == PersonLines && r.Verdict == results.CheckNotApplicable {
			rep.Checks[i].Verdict = results.CheckOK
		}
	}
	expect(t, rep, violated...)
}

// The person appends two lines while two agents work. The careful one
// conflicts, re-reads and re-applies its line to what it read: nothing is
// lost. The careless one conflicts, re-reads and sends the text it built
// before with the fresh version: both of the person's lines are lost, each
// named with that write, which is a stale write too.
func TestPersonLinesAndStaleWrites(t *testing.T) {
	s := newServed()
	s.read(careful, "1")
	s.read(person, "1")
	s.write(person, "1", "1", "", l("person-1"), nil, "ok 2")
	s.write(careful, "1", "1", "", l("careful-1"), nil, "conflict 2")
	s.read(careful, "2")
	s.write(careful, "2", "2", "", l("careful-1"), nil, "ok 3")
	s.read(careless, "3")
	s.read(person, "3")
	s.write(person, "3", "3", "", l("person-2"), nil, "ok 4")
	s.write(careless, "3", "3", "", l("careless-1"), nil, "conflict 4")
	s.read(careless, "4")
	drop := s.write(careless, "4", "4", "3", l("careless-1"), l("person-2"), "ok 5")
	// A third agent takes the version the conflict named, without reading.
	blind := actor{"blind", "", 3}
	s.read(blind, "5")
	s.read(person, "5")
	s.write(person, "5", "5", "", l("person-3"), nil, "ok 6")
	s.write(blind, "5", "5", "", l("blind-1"), l("person-1", "careful-1"), "conflict 6")
	blindWrite := s.write(blind, "6", "5", "5", l("blind-1"), l("person-1", "careful-1"), "ok 7")
	s.final("7", "careless-1", "blind-1")

	rep := s.check(t)
	expect(t, rep, results.CheckLostUpdates, results.CheckStaleOverwrites, PersonLines, StaleWrites)
	counts(t, rep, PersonLines, 3, 3)
	counts(t, rep, StaleWrites, 3, 2)
	first := result(t, rep, PersonLines).First
	want := []string{
		`h.jsonl, run serve: the person's line "person-1" (person#0 edit_note_tab n/markdown adding "person-1" expected 1 → ok 2) is not in the final text: blind (session 3) dropped it with ` + blindWrite.String() + `: the line was in what its session last saw (version 5), and not in the text it wrote`,
		`h.jsonl, run serve: the person's line "person-2" (person#0 edit_note_tab n/markdown adding "person-2" expected 3 → ok 4) is not in the final text: careless 2.0 (session 2) dropped it with ` + drop.String() + `: the line was in what its session last saw (version 4), and not in the text it wrote`,
		`h.jsonl, run serve: the person's line "person-3" (person#0 edit_note_tab n/markdown adding "person-3" expected 5 → ok 6) is not in the final text: blind (session 3) dropped it with ` + blindWrite.String() + `: it sent expected_version 6 with a text built on version 5; the line came later`,
	}
	if strings.Join(first, "\n") != strings.Join(want, "\n") {
		t.Errorf("person-lines:\n%s\nwant\n%s", strings.Join(first, "\n"), strings.Join(want, "\n"))
	}

	c := agentNamed(t, rep, "careful 1.0")
	if c.Verdict != AgentCareful || c.Conflicts != 1 || c.ReReads != 1 || c.ReApplies != 1 || c.Refreshes != 0 || c.Writes != 2 || c.Committed != 1 {
		t.Errorf("careful: %+v", c)
	}
	x := agentNamed(t, rep, "careless 2.0")
	if x.Verdict != AgentCareless || x.Conflicts != 1 || x.ReReads != 1 || x.ReApplies != 0 || x.Refreshes != 1 || x.PersonLinesDropped != 1 || x.StaleWrites != 1 ||
		strings.Join(x.Why, "; ") != "dropped 1 of the person's lines; committed 1 text built on an older version than it sent" {
		t.Errorf("careless: %+v", x)
	}
	b := agentNamed(t, rep, "blind")
	if b.Verdict != AgentCareless || b.ReReads != 0 || b.Refreshes != 1 || b.PersonLinesDropped != 2 {
		t.Errorf("blind: %+v", b)
	}
	if len(rep.Agents) != 3 {
		t.Errorf("%d agents: the person is no agent", len(rep.Agents))
	}
}

// A careful agent alone beside the person: every check is ok, and so is the
// agent.
func TestCarefulAgentIsClean(t *testing.T) {
	s := newServed()
	s.read(careful, "1")
	s.read(person, "1")
	s.write(person, "1", "1", "", l("person-1"), nil, "ok 2")
	s.write(careful, "1", "1", "", l("careful-1"), nil, "conflict 2")
	s.read(careful, "2")
	s.write(careful, "2", "2", "", l("careful-1"), nil, "ok 3")
	// Its next line builds on its own write, without a read.
	s.write(careful, "3", "3", "", l("careful-2"), nil, "ok 4")
	s.final("4", "person-1", "careful-1", "careful-2")
	rep := s.check(t)
	expect(t, rep)
	if a := agentNamed(t, rep, "careful 1.0"); a.Verdict != AgentCareful || len(a.Why) != 0 {
		t.Errorf("%+v", a)
	}
}

// Resends: a line resent under a new key after its write committed is a key
// change, made twice in the final text; a new key after a conflict is none;
// a resend under the same key after a lost reply is a same-key resend, and
// no violation. An agent that never wrote is idle.
func TestKeyChanges(t *testing.T) {
	s := newServed()
	s.read(careless, "1")
	first := s.write(careless, "1", "1", "", l("careless-1"), nil, "ok 2")
	s.read(careless, "2")
	again := s.write(careless, "2", "2", "", l("careless-1"), nil, "ok 3")
	s.read(careless, "3")
	s.read(person, "3")
	s.write(person, "3", "3", "", l("person-1"), nil, "ok 4")
	s.write(careless, "3", "3", "", l("careless-2"), nil, "conflict 4")
	s.read(careless, "4")
	s.write(careless, "4", "4", "", l("careless-2"), nil, "ok 5")
	// A resend under a new key that conflicts, then one more new key after
	// that conflict: the first is the key change.
	s.read(careless, "5")
	s.write(careless, "5", "5", "", l("careless-3"), nil, "ok 6")
	s.write(careless, "5", "5", "", l("careless-3"), nil, "conflict 6")
	s.read(careless, "6")
	s.write(careless, "6", "6", "", l("careless-3"), nil, "ok 7")
	s.read(careful, "7")
	lost := s.write(careful, "7", "7", "", l("careful-1"), nil, "info")
	re := s.write(careful, "7", "7", "", l("careful-1"), nil, "ok 8")
	re.Key, re.Replayed = lost.Key, true
	s.read(actor{"reader", "", 4}, "8")
	s.final("8", "careless-1", "careless-1", "person-1", "careless-2", "careless-3", "careless-3", "careful-1")

	rep := s.check(t)
	expectServed(t, rep, KeyChanges)
	counts(t, rep, KeyChanges, 9, 2)
	want := `h.jsonl, run serve: careless 2.0 (session 2) resent the line "careless-1" under a new key "` + again.Key + `" after ` +
		first.String() + ` had committed: ` + again.String()
	if got := result(t, rep, KeyChanges).First; len(got) != 2 || got[0] != want {
		t.Errorf("key-changes: %q\nwant %q", got, want)
	}
	x := agentNamed(t, rep, "careless 2.0")
	if x.Verdict != AgentCareless || x.KeyChanges != 2 || x.Duplicates != 2 || x.Conflicts != 2 || x.ReReads != 2 || x.ReApplies != 2 || x.SameKeyResends != 0 {
		t.Errorf("careless: %+v", x)
	}
	c := agentNamed(t, rep, "careful 1.0")
	if c.Verdict != AgentCareful || c.SameKeyResends != 1 || c.KeyChanges != 0 {
		t.Errorf("careful: %+v", c)
	}
	if r := agentNamed(t, rep, "reader"); r.Verdict != AgentIdle {
		t.Errorf("reader: %+v", r)
	}
}

// Tab references: a tab_id that is a label of the listing, not found; and a
// write to the deck that took the position of the one the agent had read,
// after the person moved them. An agent that names tabs by ID through the
// same moves is clean.
func TestTabReferences(t *testing.T) {
	bar := func(ids ...string) []history.FinalTab {
		var out []history.FinalTab
		for _, id := range ids {
			typ, label := contract.TypeSlides, strings.ToUpper(id[len(id)-1:])
			if id == "markdown" {
				typ, label = contract.TypeMarkdown, "Note"
			}
			out = append(out, history.FinalTab{TabID: id, Type: typ, Label: label})
		}
		return out
	}
	s := newServed()
	list := func(w actor, version string, tabs []history.FinalTab) {
		s.add(w, history.Call{Tool: contract.ToolListNoteTabs, Outcome: contract.OK, Version: version, Listed: tabs})
	}
	readTab := func(w actor, tab, version string) {
		s.add(w, history.Call{Tool: contract.ToolReadNoteTab, Tab: tab, Outcome: contract.OK, Version: version})
	}
	slide := func(w actor, tab, expected, version string) *history.Call {
		return s.add(w, history.Call{Tool: contract.ToolEditNoteTab, Tab: tab, Operation: string(contract.OpSlideAdd),
			ExpectedVersion: expected, Outcome: contract.OK, Version: version})
	}
	list(careless, "1", bar("markdown", "slides-a", "slides-b"))
	list(careful, "1", bar("markdown", "slides-a", "slides-b"))
	readTab(careless, "slides-a", "1")
	readTab(careful, "slides-a", "1")
	s.add(person, history.Call{Tool: "notesbench_move_tab", Tab: "slides-b", Outcome: contract.OK, Position: new(1)})
	list(careless, "2", bar("markdown", "slides-b", "slides-a"))
	list(careful, "2", bar("markdown", "slides-b", "slides-a"))
	wrong := slide(careless, "slides-b", "2", "3")
	slide(careful, "slides-a", "3", "4")
	byLabel := s.add(careless, history.Call{Tool: contract.ToolReadNoteTab, Tab: "B", Outcome: contract.Fail, ErrorKind: contract.KindNotFound})
	s.final("4")

	rep := s.check(t)
	expectServed(t, rep, TabReferences)
	counts(t, rep, TabReferences, 5, 2)
	want := []string{
		`h.jsonl, run serve: careless 2.0 (session 2) wrote tab slides-b, which had taken the position of tab slides-a, the one it was working on (careless#2 read_note_tab n/slides-a → ok 1): a reference by position, not by ID: ` + wrong.String(),
		`h.jsonl, run serve: careless 2.0 (session 2) named a tab by its label (tab_id "B"), not by its ID: ` + byLabel.String(),
	}
	if got := result(t, rep, TabReferences).First; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tab-references:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a := agentNamed(t, rep, "careless 2.0"); a.TabReferences != 2 || a.Verdict != AgentCareless {
		t.Errorf("%+v", a)
	}
	if a := agentNamed(t, rep, "careful 1.0"); a.TabReferences != 0 || a.Verdict != AgentCareful {
		t.Errorf("%+v", a)
	}
}

// Histories that are not served ones get the history checks alone, and no
// agents; a served history without a person's line has person-lines n/a.
func TestAgentChecksOnlyOnServedHistories(t *testing.T) {
	b := twoEditors(contract.GuardNote)
	b.final("2", "claude-0")
	rep := b.check(t, Options{})
	if len(rep.Checks) != len(historyChecks) || rep.Agents != nil {
		t.Errorf("%d checks, agents %v", len(rep.Checks), rep.Agents)
	}
	s := newServed()
	s.read(careful, "1")
	s.write(careful, "1", "1", "", l("careful-1"), nil, "ok 2")
	s.final("2", "careful-1")
	rep = s.check(t)
	if len(rep.Checks) != len(historyChecks)+len(agentChecks) || result(t, rep, PersonLines).Verdict != results.CheckNotApplicable {
		t.Errorf("%d checks, person-lines %+v", len(rep.Checks), result(t, rep, PersonLines))
	}
}

// Stateless requests (MCP 2026-07-28) of one clientInfo over one connection
// are one session of a served history, which may be several clients': an
// overwrite within it says check cannot tell whether one client overwrote
// its own write. Within an MCP session, one client's, it says nothing more.
func TestStaleOverwriteWithinAStatelessSession(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		s := newServed()
		s.run.Header.Variant.Guard = contract.GuardNone
		ed := actor{"editor", "1", 5}
		for range 2 {
			s.read(ed, "1")
		}
		s.write(ed, "1", "1", "", l("editor-a"), nil, "ok 2")
		s.write(ed, "1", "1", "", l("editor-b"), nil, "ok 3")
		for i := range s.run.Calls {
			s.run.Calls[i].Stateless = stateless
		}
		s.final("3", "editor-b")
		rep := s.check(t)
		for _, r := range rep.Checks {
			if r.Check != results.CheckStaleOverwrites {
				continue
			}
			if r.Violations != 1 || len(r.First) != 1 {
				t.Fatalf("stateless %v: %+v", stateless, r)
			}
			said := strings.Contains(r.First[0], "; both are stateless requests of one clientInfo over one connection, of one client or of several sharing it")
			if said != stateless {
				t.Errorf("stateless %v: %s", stateless, r.First[0])
			}
		}
	}
}
