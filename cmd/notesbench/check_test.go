package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
)

// recordRace records two editors racing on the embedded store under guard: each
// reads, then both write one line with the version they read; under a guard the
// second conflicts, re-reads and writes again. Calls take 100 ms on the
// recorder's clock.
func recordRace(t *testing.T, guard contract.Guard) string {
	t.Helper()
	return recordRaceWith(t, raceRecording{guard: guard})
}

// raceRecording is how recordRaceWith records the race: the guard, the
// version format the run header names (the store's versions are counters
// whatever it says), and what happens between the two writes.
type raceRecording struct {
	guard   contract.Guard
	format  contract.VersionFormat
	between func(*history.Recorder)
}

func recordRaceWith(t *testing.T, o raceRecording) string {
	t.Helper()
	guard := o.guard
	ctx := context.Background()
	target := backend.Memory()
	defer target.Close()
	be, err := target.Open(ctx, contract.RunSpec{Name: "r", Variant: contract.Variant{Guard: guard}})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if err := be.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	w := history.NewWriter(history.Header{Experiment: "test"})
	var now int64
	rec, err := history.Record(w, history.RunHeader{Run: "race-" + string(guard), Seed: 1, Variant: contract.Variant{Guard: guard, VersionFormat: o.format}, Policy: "reapply"},
		func() int64 { now += 100_000_000; return now })
	if err != nil {
		t.Fatal(err)
	}
	var sessions [3]contract.Session
	for i := range sessions {
		if sessions[i], err = be.Session(ctx); err != nil {
			t.Fatal(err)
		}
		defer sessions[i].Close()
	}
	claude, human := rec.Session(sessions[0], "claude"), rec.Session(sessions[1], "human")
	rc, _ := claude.ReadNoteTab(ctx, "note-1", "markdown")
	rh, _ := human.ReadNoteTab(ctx, "note-1", "markdown")
	write := func(s contract.Session, read contract.TabContent, line string) error {
		history.Intend(s, history.Intent{Mark: line})
		_, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: read.Version,
			IdempotencyKey: line + "-" + string(read.Version), Operation: contract.OpReplaceText, Text: read.Text + "\n" + line})
		return err
	}
	if err := write(claude, rc, "claude-0"); err != nil {
		t.Fatal(err)
	}
	if o.between != nil {
		o.between(rec)
	}
	if err := write(human, rh, "human-0"); err != nil {
		rh, _ = human.ReadNoteTab(ctx, "note-1", "markdown")
		if err := write(human, rh, "human-0"); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Final(ctx, sessions[2], "note-1"); err != nil {
		t.Fatal(err)
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "race-"+string(guard)+".jsonl")
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// A race on the store under the version check checks clean; without the
// check the second write is a stale overwrite that lost a line: exit 1.
func TestCheckCommand(t *testing.T) {
	clean := recordRace(t, contract.GuardNote)
	code, stdout, stderr := runCLI(t, "check", clean, "--format", "markdown")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"| linearizability | ok | 1 | 0 | 0 |", "| lost-updates | ok | 2 | 0 | 0 |", "| stale-overwrites | ok | 2 | 0 | 0 |",
		"| race-note | note, counter, key-first | reapply | 6 | ok | 0 | claude 0 of 1, human 0 of 1 | 0 | 0 | 0 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	lossy := recordRace(t, contract.GuardNone)
	code, stdout, stderr = runCLI(t, "check", lossy, "--format", "json")
	if code != 1 || !strings.HasPrefix(stderr, "notesbench: violated: lost-updates, stale-overwrites\n") {
		t.Fatalf("exit %d, stderr %q; want 1 and the violated checks", code, stderr)
	}
	var out results.CheckRecord
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	r := out.Runs[0]
	if r.Lost != 1 || r.StaleOverwrites != 1 || r.Linearizable != "ok" || out.Rows[2].Verdict != "violated" {
		t.Errorf("json: %+v", out)
	}
}

// A conflict that reports a version the register never held is not
// linearizable; --html writes porcupine's page of it, whole.
func TestCheckHTML(t *testing.T) {
	path := recordRace(t, contract.GuardNote)
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	edited := false
	for i, l := range lines {
		if strings.Contains(l, `"error_kind":"conflict"`) {
			lines[i] = strings.Replace(l, `"version":"2"`, `"version":"9"`, 1)
			edited = true
		}
	}
	if !edited {
		t.Fatal("the recorded race has no conflict")
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)
	page := filepath.Join(t.TempDir(), "first-violation.html")
	code, stdout, stderr := runCLI(t, "check", bad, "--html", page, "--format", "markdown")
	if code != 1 || !strings.Contains(stderr, "violated: linearizability") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "linearizability: "+bad+", run race-note: register note-1: no linearization") ||
		!strings.Contains(stdout, "porcupine's page of the first linearizability violation: "+page) {
		t.Errorf("output:\n%s", stdout)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "current 9") {
		t.Errorf("page: %d bytes, %v", len(html), err)
	}
	// A clean history writes no page.
	page2 := filepath.Join(t.TempDir(), "none.html")
	if code, stdout, _ := runCLI(t, "check", path, "--html", page2); code != 0 || !strings.Contains(stdout, "nothing written to "+page2) {
		t.Errorf("clean: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(page2); !os.IsNotExist(err) {
		t.Error("a page for a history without violation")
	}
}

// Bad input: one line naming the file and line, exit 2, no page written.
func TestCheckBadInput(t *testing.T) {
	good := recordRace(t, contract.GuardNote)
	b, _ := os.ReadFile(good)
	text := string(b)
	lines := strings.SplitAfter(text, "\n")
	b, err := os.ReadFile(filepath.Join("testdata", "format1-race.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	format1 := string(b)
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	page := filepath.Join(dir, "page.html")
	precious := file("notes.txt", "not a page")
	respelt := filepath.Dir(good) + "/./" + filepath.Base(good)
	result := filepath.Join(dir, "race.json")
	if code, _, stderr := runCLI(t, "race", "--clock", "virtual", "--seeds", "1", "--edits", "2", "--replications", "0", "--format", "json", "--out", result); code != 0 {
		t.Fatalf("race: exit %d: %s", code, stderr)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(good, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "notesbench: check needs at least one history file"},
		{[]string{"check", file("empty.jsonl", "")}, "notesbench: " + dir + "/empty.jsonl:1: empty file: no history header"},
		{[]string{"check", file("cut1.jsonl", format1[:len(format1)-20])}, "notesbench: " + dir + "/cut1.jsonl:59: truncated record"},
		{[]string{"check", file("bad.jsonl", lines[0]+lines[1]+"{\"format_version\":1,\n")}, "notesbench: " + dir + "/bad.jsonl:3: malformed record"},
		{[]string{"check", file("v3.jsonl", strings.Replace(text, `"format_version":2`, `"format_version":3`, 1))}, "notesbench: " + dir + "/v3.jsonl:1: format_version 3 is not supported (this notesbench reads 1 and 2)"},
		{[]string{"check", file("busy.jsonl", strings.Replace(text, `"outcome":"ok"`, `"outcome":"fail","error_kind":"busy"`, 1))}, "notesbench: " + dir + "/busy.jsonl:3: call: error_kind: \"busy\" is no kind of fail"},
		{[]string{"check", file("mixed.jsonl", text+text)}, "notesbench: " + dir + "/mixed.jsonl:" + strconv.Itoa(len(lines)) + ": a second history header"},
		{[]string{"check", filepath.Join(dir, "missing.jsonl")}, "notesbench: " + dir + "/missing.jsonl: no such file or directory"},
		{[]string{"check", good, good}, "notesbench: " + good + ": the same file as " + good + ": given twice, every run of it would be counted twice"},
		{[]string{"check", good, respelt}, "notesbench: " + respelt + ": the same file as " + good + ": given twice"},
		{[]string{"check", good, link}, "notesbench: " + link + ": the same file as " + good + ": given twice"},
		{[]string{"check", dir}, "notesbench: " + dir + ": not a regular file: a history is a file"},
		{[]string{"check", result}, "notesbench: " + result + ": a notesbench result (race), not a history: check reads the files --history writes"},
		{[]string{"check", good, "--timeout", "0s", "--html", page}, "notesbench: --timeout: must be more than 0"},
		{[]string{"check", good, "--format", "yaml"}, `notesbench: --format: unknown format "yaml"`},
		{[]string{"check", good, "--html", precious}, "notesbench: --html: " + precious + " exists and is not an HTML page"},
		{[]string{"check", good, "--html", dir}, "notesbench: --html: " + dir + " is a folder"},
		{[]string{"check", good, "--html", filepath.Join(dir, "no", "page.html")}, "notesbench: --html: cannot write in"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := tc.args
			if !slices.Contains(args, "--html") {
				args = append(slices.Clone(args), "--html", page)
			}
			expectUsageError(t, args, tc.want)
		})
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Error("bad input left a page")
	}
	if b, _ := os.ReadFile(precious); string(b) != "not a page" {
		t.Error("--html overwrote a file that was not a page")
	}
}

// Histories of format 1 read and judge as they did: the output of check on
// them is what the notesbench that wrote them printed (the goldens were made
// by it).
func TestCheckFormat1Histories(t *testing.T) {
	for _, name := range []string{"format1-race", "format1-create"} {
		code, stdout, stderr := runCLI(t, "check", "--format", "markdown", filepath.Join("testdata", name+".jsonl"))
		if code != 1 || !strings.HasPrefix(stderr, "notesbench: violated: ") {
			t.Errorf("%s: exit %d, %q; want 1, violated", name, code, stderr)
		}
		checkGolden(t, "check-"+name, stdout)
	}
}

// A history with no run is nothing to judge: every check unknown, exit 3,
// one line saying so; a history of format 1 alike.
func TestCheckNothingToJudge(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := history.NewWriter(history.Header{Experiment: "race"}).WriteFile(empty); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.jsonl")
	os.WriteFile(old, []byte(`{"format_version":1,"kind":"history","experiment":"race"}`+"\n"), 0o644)
	for _, tc := range []struct{ file, stderr string }{
		{empty, "notesbench: nothing to judge: " + empty + " holds no run\n"},
		{old, "notesbench: nothing to judge: " + old + " holds no run\n"},
	} {
		code, stdout, stderr := runCLI(t, "check", "--format", "markdown", tc.file)
		if code != cli.ExitUnknown || stderr != tc.stderr {
			t.Errorf("%s: exit %d, %q; want 3, %q", tc.file, code, stderr, tc.stderr)
		}
		if strings.Contains(stdout, "| ok |") || strings.Count(stdout, "| unknown | 0 | 0 | 0 |") != len(check.HistoryChecks()) {
			t.Errorf("%s: not every check unknown:\n%s", tc.file, stdout)
		}
	}
}

// A history cut before its end line is judged on what it holds: its verdict
// is at best unknown (exit 3), and check says it was cut short; a
// violation in what it holds is still one (exit 1).
func TestCheckCutShort(t *testing.T) {
	clean := readText(t, recordRace(t, contract.GuardNote))
	lossy := readText(t, recordRace(t, contract.GuardNone))
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	withoutEnd := func(s string) string {
		return s[:strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")+1]
	}
	noEnd := file("no-end.jsonl", withoutEnd(clean))
	inLine := file("in-line.jsonl", clean[:len(clean)-20])
	lines := strings.Count(clean, "\n")
	for _, tc := range []struct{ file, stderr string }{
		{noEnd, "notesbench: unknown: cut short (no end line): " + noEnd + " after line " + strconv.Itoa(lines-1) + ": what it holds was judged, what it lacks cannot be\n"},
		{inLine, "notesbench: unknown: cut short (no end line): " + inLine + " after line " + strconv.Itoa(lines-1) + ": what it holds was judged, what it lacks cannot be\n"},
	} {
		code, stdout, stderr := runCLI(t, "check", "--format", "markdown", tc.file)
		if code != cli.ExitUnknown || stderr != tc.stderr {
			t.Errorf("exit %d, %q; want 3, %q", code, stderr, tc.stderr)
		}
		if !strings.Contains(stdout, "| lost-updates | unknown | 2 | 0 | 0 |") || !strings.Contains(stdout, "lost-updates unknown: cut short (no end line): "+tc.file) {
			t.Errorf("output:\n%s", stdout)
		}
	}
	cutLossy := file("lossy.jsonl", withoutEnd(lossy))
	code, _, stderr := runCLI(t, "check", cutLossy)
	if want := "notesbench: violated: lost-updates, stale-overwrites (in what was read of histories cut short, with no end line: " + cutLossy + " after line "; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("a lossy history cut short: exit %d, %q; want 1, %q", code, stderr, want)
	}
}

// readText returns the text of the file at path.
func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A conflict whose reply named no current version judges like any other
// (exit 0, never 2); digest versions make the versions check n/a, which is
// not unknown (exit 0).
func TestCheckConflictWithoutVersionAndDigests(t *testing.T) {
	text := readText(t, recordRace(t, contract.GuardNote))
	conflict := regexp.MustCompile(`("error_kind":"conflict"),"version":"2"|"version":"2",(.*"error_kind":"conflict")`)
	if !conflict.MatchString(text) {
		t.Fatalf("no conflict naming version 2 in the race:\n%s", text)
	}
	bare := filepath.Join(t.TempDir(), "bare.jsonl")
	os.WriteFile(bare, []byte(conflict.ReplaceAllString(text, "$1$2")), 0o644)
	code, stdout, stderr := runCLI(t, "check", "--format", "markdown", bare)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "| linearizability | ok | 1 | 0 | 0 |") {
		t.Errorf("conflicts without a current version: exit %d, %q\n%s", code, stderr, stdout)
	}

	digests := recordRaceWith(t, raceRecording{guard: contract.GuardNote, format: contract.FormatDigest})
	code, stdout, stderr = runCLI(t, "check", "--format", "markdown", digests)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "| versions | n/a | 0 | 0 | 0 |") ||
		!strings.Contains(stdout, "- versions n/a: not applicable to "+digests+", run race-note: digest versions are the same for the same content") {
		t.Errorf("digest versions: exit %d, %q\n%s", code, stderr, stdout)
	}
}

// A fault recorded in a run is printed with the violations after it, and
// marked on porcupine's page.
func TestCheckFaults(t *testing.T) {
	kill := func(rec *history.Recorder) {
		at := rec.Now()
		if err := rec.Fault(history.Fault{Kind: history.FaultKill, Start: at, End: at, PID: 4711}); err != nil {
			t.Fatal(err)
		}
	}
	lossy := recordRaceWith(t, raceRecording{guard: contract.GuardNone, between: kill})
	if text := readText(t, lossy); !strings.Contains(text, `"kind":"fault","run":"race-none","fault":"kill","start_ns":700000000,"end_ns":700000000,"pid":4711}`) ||
		!strings.HasSuffix(text, `{"format_version":2,"kind":"end","runs":1,"calls":4,"faults":1}`+"\n") {
		t.Fatalf("history:\n%s", text)
	}
	code, stdout, _ := runCLI(t, "check", "--format", "markdown", lossy)
	if code != 1 || !strings.Contains(stdout, `- lost-updates: `+lossy+`, run race-none: acknowledged, missing from the final state: claude#1 edit_note_tab note-1/markdown adding "claude-0" expected 1 → ok 2; then human#2 edit_note_tab note-1/markdown adding "human-0" expected 1 → ok 3 replaced the text with one built on a version before it; after kill at 0.70 s (pid 4711)`) ||
		!strings.Contains(stdout, "(human#2 read_note_tab note-1/markdown → ok 1); after kill at 0.70 s (pid 4711)") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}

	// The conflict of a guarded race made to name a version nobody made:
	// a linearizability violation after the kill.
	lines := strings.Split(readText(t, recordRaceWith(t, raceRecording{guard: contract.GuardNote, between: kill})), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"error_kind":"conflict"`) {
			lines[i] = strings.Replace(l, `"version":"2"`, `"version":"9"`, 1)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)
	page := filepath.Join(t.TempDir(), "page.html")
	code, stdout, _ = runCLI(t, "check", "--format", "markdown", "--html", page, bad)
	if code != 1 || !strings.Contains(stdout, "current 9; after kill at 0.70 s (pid 4711)") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
	if html := readText(t, page); !strings.Contains(html, "kill at 0.70 s (pid 4711)") {
		t.Errorf("the page does not mark the kill (%d bytes)", len(html))
	}
}

// race --history then check through a profile, as for any target: check
// reads the history (exit 0 or 1, never 2) and counts the lines the race
// lost, run by run. Through the github profile, and through it with its
// conflicts naming no current version (as a vault's REVISION_CONFLICT or an
// SQL UPDATE … WHERE version = ? that matched no row).
func TestCheckProfiledRaceCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns servers")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	versionless := writeProfile(t, func(s string) string {
		const current = `,
    "current_version": {"from": "text", "pattern": "is at ([0-9a-f]{40})"}`
		if !strings.Contains(s, current) {
			t.Fatal("the github profile's conflict names no current_version to take away")
		}
		return strings.Replace(s, current, "", 1)
	})
	profiles := []string{"github", versionless}
	if testpass.Race {
		// Each race spawns this test binary as the server, ten times slower
		// under the detector: the versionless profile alone, the github
		// profile's race running under it in mcpclient's tests
		// (TestGitHubShapedProfile). make test-large checks both here.
		profiles = profiles[1:]
	}
	for _, profile := range profiles {
		hist := filepath.Join(t.TempDir(), "h.jsonl")
		code, stdout, stderr := runCLI(t, "race", "--target", ghshapeTarget(t), "--profile", profile, "--seeds", "1", "--edits", "15",
			"--pause", "0", "--history", hist, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: race: exit %d\n%s", profile, code, stderr)
		}
		var race struct {
			Rows []struct {
				Guard  string `json:"guard"`
				Policy string `json:"policy"`
				Lost   int    `json:"lost"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(stdout), &race); err != nil || len(race.Rows) == 0 {
			t.Fatalf("%s: race: %v\n%s", profile, err, stdout)
		}
		text := readText(t, hist)
		if conflicts := strings.Count(text, `"error_kind":"conflict"`); conflicts == 0 ||
			profile == versionless && strings.Count(text, `"error_kind":"conflict","error"`)+strings.Count(text, `"error_kind":"conflict"}`) != conflicts {
			t.Errorf("%s: %d conflicts in the history, or some name a version", profile, conflicts)
		}
		code, stdout, stderr = runCLI(t, "check", "--format", "json", hist)
		if code != 0 && code != 1 {
			t.Fatalf("%s: check: exit %d, %s", profile, code, stderr)
		}
		var rep results.CheckRecord
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		for _, row := range race.Rows {
			name := "race-" + row.Guard + "-" + row.Policy + "-seed1"
			i := slices.IndexFunc(rep.Runs, func(r results.CheckRun) bool { return r.Run == name })
			if i < 0 {
				t.Errorf("%s: check has no run %s", profile, name)
				continue
			}
			if r := rep.Runs[i]; r.Lost != row.Lost || r.Linearizable != results.CheckOK {
				t.Errorf("%s: %s: check counts %d lost (linearizable %s), the race %d", profile, name, r.Lost, r.Linearizable, row.Lost)
			}
		}
	}
}

// servedHistory writes a served history of one run: calls, each a JSON
// object of a call's fields past run and kind, then the final text of
// note-1.
func servedHistory(t *testing.T, text string, calls ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"format_version":2,"kind":"history","experiment":"serve"}` + "\n")
	b.WriteString(`{"format_version":2,"kind":"run","run":"serve","variant":{"guard":"note","version_format":"counter","order":"key-first"}}` + "\n")
	for _, c := range calls {
		b.WriteString(`{"format_version":2,"kind":"call","run":"serve",` + strings.TrimPrefix(c, "{") + "\n")
	}
	final, _ := json.Marshal(text)
	b.WriteString(`{"format_version":2,"kind":"final","run":"serve","note":"note-1","version":"3","tabs":[{"tab_id":"markdown","type":"markdown","label":"Note"}],"text":` + string(final) + `,"sources":[]}` + "\n")
	fmt.Fprintf(&b, `{"format_version":2,"kind":"end","runs":1,"calls":%d,"faults":0}`+"\n", len(calls))
	path := filepath.Join(t.TempDir(), "served.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The Agents table's Sessions column counts an agent's sessions, however
// they were numbered: over MCP sessions (2025-11-25) it listed their
// numbers, in the order of their first calls ("3 1"). The JSON result keeps
// the numbers, in order.
func TestCheckAgentSessionsCount(t *testing.T) {
	h := servedHistory(t, "a\nb",
		`{"editor":"multi","client_version":"1.0","session":3,"tool":"read_note_tab","note":"note-1","tab":"markdown","invoke_ns":1,"return_ns":2,"outcome":"ok","version":"1"}`,
		`{"editor":"multi","client_version":"1.0","session":1,"tool":"read_note_tab","note":"note-1","tab":"markdown","invoke_ns":3,"return_ns":4,"outcome":"ok","version":"1"}`,
		`{"editor":"multi","client_version":"1.0","session":3,"tool":"edit_note_tab","note":"note-1","tab":"markdown","operation":"replace_text","expected_version":"1","idempotency_key":"k1","invoke_ns":5,"return_ns":6,"outcome":"ok","version":"2","read_version":"1","adds":["a"]}`,
		`{"editor":"multi","client_version":"1.0","session":1,"tool":"edit_note_tab","note":"note-1","tab":"markdown","operation":"replace_text","expected_version":"1","idempotency_key":"k2","invoke_ns":7,"return_ns":8,"outcome":"fail","error_kind":"conflict","version":"2","read_version":"1","adds":["b"]}`,
		`{"editor":"multi","client_version":"1.0","session":1,"tool":"read_note_tab","note":"note-1","tab":"markdown","invoke_ns":9,"return_ns":10,"outcome":"ok","version":"2"}`,
		`{"editor":"multi","client_version":"1.0","session":1,"tool":"edit_note_tab","note":"note-1","tab":"markdown","operation":"replace_text","expected_version":"2","idempotency_key":"k3","invoke_ns":11,"return_ns":12,"outcome":"ok","version":"3","read_version":"2","adds":["b"]}`,
		`{"editor":"solo","session":2,"tool":"read_note_tab","note":"note-1","tab":"markdown","invoke_ns":13,"return_ns":14,"outcome":"ok","version":"3"}`,
	)
	code, stdout, stderr := runCLI(t, "check", "--format", "markdown", h)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"| multi 1.0 | careful | 2 | 3 | 1 | 1 | 1 | 0 |", "| solo | no writes | 1 | 0 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the agents table lacks %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = runCLI(t, "check", "--format", "json", h)
	var rec struct {
		Agents []results.AgentResult `json:"agents"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil || len(rec.Agents) != 2 || !slices.Equal(rec.Agents[0].Sessions, []int{1, 3}) {
		t.Errorf("json agents %+v, %v; want multi in sessions [1 3]", rec.Agents, err)
	}
}
