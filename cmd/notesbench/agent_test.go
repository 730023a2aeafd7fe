package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Bad --person, --seed and --history input: one line naming the flag, exit
// 2, nothing served and no history file.
func TestServeAgentBadInput(t *testing.T) {
	dir := t.TempDir()
	notHistory := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notHistory, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "n.db")
	h := filepath.Join(dir, "h.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--db", db, "--person", "every=fast"}, `notesbench: --person: every: "fast" is not a duration (e.g. 500ms, 2s)`},
		{[]string{"serve", "--db", db, "--person", "actions=append"}, "notesbench: --person: every: missing (every=DURATION: the mean time between the person's edits)"},
		{[]string{"serve", "--db", db, "--person", "every=1s,actions=append,erase"}, `notesbench: --person: actions: unknown person action "erase" (want append, rename, move or source)`},
		{[]string{"serve", "--db", db, "--person", "every=1s", "--note", ""}, "notesbench: --person: needs a Note to edit: --note names it"},
		{[]string{"serve", "--db", db, "--seed", "3"}, "notesbench: --seed: applies to --person only"},
		{[]string{"serve", "--db", db, "--history", notHistory}, "notesbench: --history: " + notHistory + " exists and is not a notesbench history"},
		{[]string{"serve", "--db", db, "--history", db + "x", "--db", db + "x"}, "notesbench: --history: "},
	} {
		t.Run(strings.Join(tc.args[3:], " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
	for _, f := range []string{db, h} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s was made: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(notHistory); string(b) != "my notes\n" {
		t.Errorf("the user's file was changed: %q", b)
	}
}

// A second serve --history of the same file is refused before anything is
// opened, and the history the first one recorded is left as it was: it once
// replaced a history of 146 calls with an empty one.
func TestServeNeverReplacesAHistory(t *testing.T) {
	dir := t.TempDir()
	db, h := filepath.Join(dir, "agent.db"), filepath.Join(dir, "agent.jsonl")
	// Over stdio: a client lists the Note's tabs, and the end of its input
	// ends serve and its history.
	session := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_note_tabs","arguments":{"note_id":"note-1"}}}
`
	var stdout, stderr bytes.Buffer
	if code := run([]string{"serve", "--db", db, "--history", h}, strings.NewReader(session), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	first, err := os.ReadFile(h)
	if err != nil || !strings.Contains(string(first), `"tool":"list_note_tabs"`) || !strings.Contains(string(first), `"kind":"end","runs":1,"calls":1`) {
		t.Fatalf("the first history: %v\n%s", err, first)
	}
	expectUsageError(t, []string{"serve", "--db", db, "--history", h},
		"notesbench: --history: "+h+" holds a history already, which serve never replaces: name another file, or move that one away")
	if b, _ := os.ReadFile(h); string(b) != string(first) {
		t.Errorf("the history was changed:\n%s\nwas\n%s", b, first)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left: %v", entries)
	}
}

// agentPolicy is what a test client does after a conflict and after a
// reply it drops.
type agentPolicy string

const (
	// reapply: after a conflict, re-read and apply its line to what it read;
	// after a dropped reply, resend the same call with the same key.
	reapply agentPolicy = "reapply"
	// refresh: after a conflict, take the fresh version and resend the text
	// it built before.
	refresh agentPolicy = "refresh"
	// newKey: after a dropped reply, re-read and apply its line again under a
	// new key; after a conflict, as reapply.
	newKey agentPolicy = "newkey"
)

// agentEdits is how many lines each test client appends.
const agentEdits = 8

// agentRun is one test client's run against serve --person --history.
type agentRun struct {
	name   string
	policy agentPolicy
	// drops is how many replies the client dropped, as it says.
	drops int
}

// clientOutcome is what a test of a client reads back: serve's account of
// the person, the final text, and check's verdict.
type clientOutcome struct {
	appended int      // the lines the person appended, as serve says
	final    []string // the final text's lines
	code     int      // check's exit code
	record   struct {
		Rows []struct {
			Check      string `json:"check"`
			Verdict    string `json:"verdict"`
			Judged     int    `json:"judged"`
			Violations int    `json:"violations"`
		} `json:"rows"`
		Agents []struct {
			Agent              string `json:"agent"`
			Verdict            string `json:"verdict"`
			Conflicts          int    `json:"conflicts"`
			ReApplies          int    `json:"reapplies"`
			Refreshes          int    `json:"refreshes"`
			SameKeyResends     int    `json:"same_key_resends"`
			KeyChanges         int    `json:"key_changes"`
			Duplicates         int    `json:"duplicates"`
			PersonLinesDropped int    `json:"person_lines_dropped"`
		} `json:"agents"`
	}
	stdout string // check's output as a table
	stderr string // and what it says on stderr
}

var appendedLine = regexp.MustCompile(`the person made \d+ edits on Note note-1: (\d+) lines appended`)

// runAgent serves a fresh database with a person and a history, runs the
// client (which gets the URL and returns its run), stops serve, reads the
// final text through a serve of its own, and checks the history.
func runAgent(t *testing.T, bin string, client func(url string) agentRun) (agentRun, clientOutcome) {
	t.Helper()
	dir := t.TempDir()
	db, h := filepath.Join(dir, "n.db"), filepath.Join(dir, "h.jsonl")
	url, stop := startServe(t, bin, "--http", "127.0.0.1:0", "--db", db, "--person", "every=20ms", "--seed", "1", "--history", h)
	run := client(url)
	code, lines := stop()
	var out clientOutcome
	m := appendedLine.FindStringSubmatch(lines)
	if code != 0 || m == nil || !strings.Contains(lines, "notesbench serve: history "+h+" written") {
		t.Fatalf("serve: exit %d\n%s", code, lines)
	}
	out.appended, _ = strconv.Atoi(m[1])
	out.final = finalText(t, db)

	var stdout, stderr string
	out.code, stdout, stderr = runCLI(t, "check", "--format", "json", h)
	if err := json.Unmarshal([]byte(stdout), &out.record); err != nil {
		t.Fatalf("check: exit %d, %v\n%s%s", out.code, err, stdout, stderr)
	}
	_, out.stdout, out.stderr = runCLI(t, "check", "--format", "markdown", h)
	return run, out
}

// finalText reads the text of note-1 in db through a serve over stdio.
func finalText(t *testing.T, db string) []string {
	t.Helper()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"reader","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_note_tab","arguments":{"note_id":"note-1","tab_id":"markdown"}}}`,
	}, "\n") + "\n"
	var stdout, stderr strings.Builder
	if code := run([]string{"serve", "--db", db, "--note", ""}, strings.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("reading the final text: exit %d\n%s", code, stderr.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Structured struct {
					Data string `json:"data"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.ID == 2 {
			return strings.Split(r.Result.Structured.Data, "\n")
		}
	}
	t.Fatalf("no reply to read_note_tab:\n%s", stdout.String())
	return nil
}

// row returns check's row for the named check.
func (o clientOutcome) row(t *testing.T, name string) (verdict string, judged, violations int) {
	t.Helper()
	for _, r := range o.record.Rows {
		if r.Check == name {
			return r.Verdict, r.Judged, r.Violations
		}
	}
	t.Fatalf("no %s row in check's result", name)
	return "", 0, 0
}

// expectVerdict holds check's verdict on one client to what the person wrote
// and what the final Note holds: the careful client loses nothing and exits
// 0; the refreshing one loses person's lines, every one named with one of
// its writes; the one that changes keys makes a line twice per reply it
// dropped.
func expectVerdict(t *testing.T, agent string, run agentRun, out clientOutcome) {
	t.Helper()
	present, copies := 0, map[string]int{}
	for _, l := range out.final {
		if strings.HasPrefix(l, "person-") {
			present++
		}
		if strings.HasPrefix(l, run.name+"-") {
			copies[l]++
		}
	}
	lost := out.appended - present
	dups := 0
	for _, n := range copies {
		dups += n - 1
	}
	if len(copies) != agentEdits {
		t.Errorf("the final text holds %d of the client's %d lines:\n%s", len(copies), agentEdits, strings.Join(out.final, "\n"))
	}
	if len(out.record.Agents) != 1 {
		t.Fatalf("agents: %+v", out.record.Agents)
	}
	a := out.record.Agents[0]
	verdict, judged, violations := out.row(t, "person-lines")
	if a.Agent != agent || judged != out.appended || out.appended == 0 {
		t.Errorf("agent %q, person-lines judged %d; want %q and the %d lines the person appended", a.Agent, judged, agent, out.appended)
	}
	if a.Conflicts < agentEdits {
		t.Errorf("%d conflicts: every edit waited for the person, so each first try conflicts", a.Conflicts)
	}
	switch run.policy {
	case reapply:
		if out.code != 0 || lost != 0 || dups != 0 || a.Verdict != "careful" || verdict != "ok" || a.SameKeyResends != run.drops || a.ReApplies != a.Conflicts {
			t.Errorf("a careful client: exit %d, %d lost, %d duplicates, %+v\n%s", out.code, lost, dups, a, out.stdout)
		}
	case refresh:
		if out.code != 1 || lost == 0 || violations != lost || a.PersonLinesDropped != lost || a.Verdict != "careless" ||
			a.Refreshes != a.Conflicts || !strings.Contains(out.stdout, "dropped it with") {
			t.Errorf("a refreshing client: exit %d, %d lost, person-lines %s with %d violations, %+v\n%s", out.code, lost, verdict, violations, a, out.stdout)
		}
	case newKey:
		if out.code != 1 || lost != 0 || run.drops == 0 || dups != run.drops || a.Duplicates != dups || a.KeyChanges != run.drops || a.Verdict != "careless" {
			t.Errorf("a client that changes keys: exit %d, %d lost, %d duplicates of %d drops, %+v\n%s", out.code, lost, dups, run.drops, a, out.stdout)
		}
	}
	if a.Verdict == "careless" && (!strings.Contains(out.stdout, "| "+agent+" | careless |") || !strings.HasSuffix(out.stderr, "; careless: "+agent+"\n")) {
		t.Errorf("check does not name the careless agent:\n%s%s", out.stdout, out.stderr)
	}
}

// The same three clients, written with the MCP Go SDK, each against serve
// --person --history over HTTP, judged by check.
func TestAgentsGoSDK(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	bin := buildNotesbench(t)
	for _, p := range []agentPolicy{reapply, refresh, newKey} {
		t.Run(string(p), func(t *testing.T) {
			name := "go-" + string(p)
			run, out := runAgent(t, bin, func(url string) agentRun { return goAgent(t, url, name, p) })
			expectVerdict(t, name+" 1.0.0", run, out)
		})
	}
}

// goAgent is one test client of the Go SDK: it appends agentEdits lines to
// note-1, each after the person edited the Note since its read, so that its
// first try conflicts, and does after that what policy says. It drops the
// reply of every third write that committed (reapply, newkey).
func goAgent(t *testing.T, url, name string, policy agentPolicy) agentRun {
	t.Helper()
	c := dialGoAgent(t, url, name)
	defer c.close()
	run := agentRun{name: name, policy: policy}
	committed := 0
	for i := range agentEdits {
		line := fmt.Sprintf("%s-%d", name, i)
		text, version := c.read()
		c.waitForChange(version)
		keys := 0
		key := func() string { keys++; return fmt.Sprintf("%s-%d-%d", name, i, keys) }
		k := key()
		body, expected := appendTo(text, line), version
		for try := 0; ; try++ {
			if try > 50 {
				t.Fatalf("%s: no write of %s committed in 50 tries", name, line)
			}
			res := c.write(body, expected, k)
			if res.conflict {
				switch policy {
				case refresh:
					expected = res.current // the fresh version, the old text
				default:
					text, version = c.read()
					body, expected = appendTo(text, line), version
				}
				k = key()
				continue
			}
			committed++
			if policy == refresh || committed%3 != 0 {
				break
			}
			// The reply is dropped: the client does not know it committed.
			run.drops++
			if policy == reapply {
				continue // the same call, the same key: replayed
			}
			text, version = c.read()
			body, expected, k = appendTo(text, line), version, key()
		}
	}
	return run
}

// appendTo returns text with line appended.
func appendTo(text, line string) string {
	if strings.TrimSpace(text) == "" {
		return line
	}
	return strings.TrimRight(text, "\n") + "\n" + line
}
