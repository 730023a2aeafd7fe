package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

func TestParsePerson(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
	}{
		{"every=2s", "every=2s,actions=append"},
		{"every=50ms,actions=append,rename,move,source", "every=50ms,actions=append,rename,move,source"},
		{" every = 1m , actions = move ", "every=1m0s,actions=move"},
	} {
		p, err := ParsePerson(tc.spec)
		if err != nil || p.String() != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.spec, p, err, tc.want)
		}
	}
	for _, tc := range []struct {
		spec, want string
	}{
		{"", `"" is no setting (want every=DURATION or actions=LIST)`},
		{"2s", `"2s" is no setting (want every=DURATION or actions=LIST)`},
		{"actions=append", "every: missing (every=DURATION: the mean time between the person's edits)"},
		{"every=soon", `every: "soon" is not a duration (e.g. 500ms, 2s)`},
		{"every=0s", "every: 0s is not between 1ms and 24h0m0s"},
		{"every=1s,every=2s", "every is set twice"},
		{"every=1s,pace=2", `unknown setting "pace" (want every or actions)`},
		{"every=1s,actions=append,delete", `actions: unknown person action "delete" (want append, rename, move or source)`},
		{"every=1s,actions=move,move", "actions: move is listed twice"},
	} {
		if _, err := ParsePerson(tc.spec); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.spec, err, tc.want)
		}
	}
}

// versionOf returns the Note version a tool result names.
func versionOf(out map[string]any) string {
	return fmt.Sprint(out["version"])
}

// stepper lets the person edit only when the test says: one edit a step,
// its Wait in place of the wall clock's gaps.
type stepper struct{ step, idle chan struct{} }

func newStepper() *stepper {
	return &stepper{step: make(chan struct{}), idle: make(chan struct{})}
}

// wait is the person's Wait: it says the person is idle, then waits for a
// step.
func (s *stepper) wait(ctx context.Context, _ time.Duration) error {
	select {
	case s.idle <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-s.step:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// edit has the person make one edit, and returns once it is made (the
// person is idle again).
func (s *stepper) edit() {
	s.step <- struct{}{}
	<-s.idle
}

// appendLines has a client append lines to note-1, one at a time: it reads
// the text, has the person make one edit, then writes the text it read
// plus its line with the version it read; on a conflict it reads again and
// re-applies its line, the person idle. Under guard none nothing conflicts,
// and its write drops what the person wrote meanwhile.
func appendLines(t *testing.T, cs *mcp.ClientSession, person *stepper, name string, n int) []string {
	t.Helper()
	var lines []string
	for i := range n {
		line := fmt.Sprintf("%s-%d", name, i)
		for try := 0; ; try++ {
			_, tab := call(t, cs, "read_note_tab", `{"note_id":"note-1","tab_id":"markdown"}`)
			read := versionOf(tab)
			if try == 0 {
				person.edit()
			}
			text := strings.TrimSpace(tab["data"].(string) + "\n" + line)
			res, out := call(t, cs, "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":"markdown","expected_version":%s,"idempotency_key":%q,"operation":"replace_text","text":%q}`,
				read, fmt.Sprintf("%s-%d", line, try), text))
			if !res.IsError {
				break
			}
			// The person edits once a line: a second conflict is the
			// server's.
			if out["error"] != contract.ErrVersionConflict || try > 0 {
				t.Fatalf("%s, try %d: %v", line, try+1, out)
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// The person edits the Note beside a client, each edit one step between the
// client's calls, and the history records both: under the version check a
// client that re-reads and re-applies loses nothing, and check finds it
// careful; without one, the client's writes drop the person's lines, never
// the other way round, and check names the client for each.
func TestPersonBesideAClient(t *testing.T) {
	for _, guard := range []contract.Guard{contract.GuardNote, contract.GuardNone} {
		t.Run(string(guard), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "h.jsonl")
			start := time.Now()
			v := contract.Variant{Guard: guard}
			log := recordLog(t, path, v, start)
			srv := newServer(t, v, Options{History: log})
			cs := connect(t, srv)
			call(t, cs, "create_note_tab", `{"note_id":"note-1","expected_version":1,"idempotency_key":"deck","tab_type":"slides","label":"Deck"}`)
			// One edit between the client's read and write of each line, of
			// the four actions drawn from seed 1 (appends among them).
			person := newStepper()
			stop, err := srv.StartPerson(ctx, PersonSchedule{Note: "note-1", Every: 2 * time.Millisecond, Seed: 1,
				Actions: []PersonAction{PersonAppend, PersonRename, PersonMove, PersonSource}, Wait: person.wait})
			if err != nil {
				t.Fatal(err)
			}
			<-person.idle
			if _, err := srv.StartPerson(ctx, PersonSchedule{Note: "note-1", Every: time.Second}); err == nil || err.Error() != "a person was started already" {
				t.Errorf("a second person: %v", err)
			}
			mine := appendLines(t, cs, person, "client", 8)
			report := stop()
			_, tab := call(t, cs, "read_note_tab", `{"note_id":"note-1","tab_id":"markdown"}`)
			cs.Close()
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
			final := strings.Split(tab["data"].(string), "\n")
			for _, l := range mine {
				if !slices.Contains(final, l) {
					t.Errorf("the client's line %s is lost: the person overwrote it", l)
				}
			}
			lost := 0
			for _, l := range report.Lines {
				if !slices.Contains(final, l) {
					lost++
				}
			}
			if report.Appended != len(report.Lines) || report.Appended == 0 || report.Failed != 0 {
				t.Fatalf("the person: %+v", report)
			}
			if guard == contract.GuardNote && lost != 0 {
				t.Errorf("%d of the person's lines lost under the version check", lost)
			}
			if guard == contract.GuardNone && lost == 0 {
				t.Errorf("no person's line lost without a version check, though each write came after one")
			}

			h, err := history.ReadFile(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := check.Run(ctx, []*history.History{h}, check.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, c := range rep.Checks {
				if c.Check == check.PersonLines {
					got = fmt.Sprintf("%s, %d judged, %d violations", c.Verdict, c.Judged, c.Violations)
				}
			}
			want := fmt.Sprintf("ok, %d judged, 0 violations", report.Appended)
			if lost > 0 {
				want = fmt.Sprintf("violated, %d judged, %d violations", report.Appended, lost)
			}
			if h.Cut || got != want || len(rep.Agents) != 1 || rep.Agents[0].Agent != "test" || rep.Agents[0].PersonLinesDropped != lost {
				t.Errorf("check: cut %v, person-lines %s, want %s; agents %+v", h.Cut, got, want, rep.Agents)
			}
			if guard == contract.GuardNote {
				if v, u := rep.Failed(); len(v) > 0 || len(u) > 0 || rep.Agents[0].Verdict != check.AgentCareful {
					t.Errorf("a careful client: violated %v, unknown %v, %+v", v, u, rep.Agents[0])
				}
			}
		})
	}
}

// The person needs a Note that exists, and a Backend with the person's
// actions for renames and moves.
func TestStartPersonRefuses(t *testing.T) {
	srv := newServer(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	if _, err := srv.StartPerson(ctx, PersonSchedule{Note: "nobody", Every: time.Second}); err == nil || err.Error() != `note nobody: note_id: "nobody" not found` {
		t.Errorf("%v", err)
	}
	if _, err := srv.StartPerson(ctx, PersonSchedule{Every: time.Second}); err == nil || err.Error() != "the person needs a Note to edit" {
		t.Errorf("%v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	stop, err := srv.StartPerson(cctx, PersonSchedule{Note: "note-1", Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if r := stop(); r.Edits() != 0 {
		t.Errorf("%+v", r)
	}
}

// While the person edits, the clients' calls wait: the person's read and
// write are one step between them.
func TestClientsWaitForThePersonsEdit(t *testing.T) {
	srv, cs := start(t, contract.Variant{}, Options{})
	closeOnCleanup(t, srv)
	stop, err := srv.StartPerson(ctx, PersonSchedule{Note: "note-1", Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	srv.rec.edit.Lock() // as the person's edit does
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, cs, "list_note_tabs", `{"note_id":"note-1"}`)
	}()
	time.Sleep(20 * time.Millisecond)
	select {
	case <-done:
		t.Error("a client's call ran in the middle of the person's edit")
	default:
	}
	srv.rec.edit.Unlock()
	<-done
}
