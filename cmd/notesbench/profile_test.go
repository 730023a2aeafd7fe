package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/ghshape"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
)

// ghshapeTarget is a stdio target that spawns the test binary as a
// GitHub-shaped server of a folder of its own.
func ghshapeTarget(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "stdio:env GORACE=atexit_sleep_ms=0 " + ghshape.Env + "='" + t.TempDir() + "' '" + exe + "' -test.run=^$"
}

// writeProfile writes the github profile with edit applied to its text.
func writeProfile(t *testing.T, edit func(string) string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "mcpclient", "profile", "builtin", "github.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "mine.json")
	if err := os.WriteFile(f, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// --profile on the commands: a race and conform through the github example
// profile over stdio; a bad profile file is one line naming the profile
// field, exit 2, before anything runs; an extraction that finds nothing in
// the server's reply is one line naming the field and the reply, exit 1; a
// command that needs what the profile does not map is one line, exit 1.
func TestProfileFlag(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("spawns servers")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	target := ghshapeTarget(t)
	code, stdout, stderr := runCLI(t, "race", "--target", target, "--profile", "github", "--seeds", "1", "--edits", "15",
		"--pause", "0", "--format", "json")
	if code != 0 {
		t.Fatalf("race: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Config struct {
			Target string `json:"target"`
		} `json:"config"`
		Rows []struct {
			Guard  string `json:"guard"`
			Policy string `json:"policy"`
			Lost   int    `json:"lost"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Policy != "reapply" || rep.Rows[0].Lost != 0 || rep.Rows[1].Policy != "refresh" ||
		!strings.HasSuffix(rep.Config.Target, " (profile github)") {
		t.Errorf("race through the github profile: %s", stdout)
	}

	// A profiled run's history checks like any other: the versions are the
	// server's shas, opaque (the versions check does not apply to them);
	// refresh's lost lines are lost updates.
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	if code, _, stderr := runCLI(t, "race", "--target", target, "--profile", "github", "--seeds", "1", "--edits", "15",
		"--pause", "0", "--history", hist, "--format", "json"); code != 0 {
		t.Fatalf("race --history: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "check", hist, "--format", "markdown")
	if !strings.Contains(stdout, "| linearizability | ok |") || !strings.Contains(stdout, "| versions | n/a |") ||
		!strings.Contains(stdout, "github") && !strings.Contains(stdout, "race-note-refresh-seed1") {
		t.Errorf("check of a profiled run: exit %d\n%s%s", code, stdout, stderr)
	}

	var crep struct {
		Rows []results.ConformCheck `json:"rows"`
	}
	// conform through the profile: its within-a-millisecond clause writes for
	// 10 s where the race detector slows the server (this test binary) to
	// a few writes a millisecond apart; mcpclient's TestConformThroughProfiles
	// holds the clauses, make test-large this command, the clause writing
	// for a second (it judges none here).
	if !testpass.Race {
		code, stdout, stderr = runCLI(t, "conform", "--target", target, "--profile", "github", "--fast-time", "1s", "--format", "json")
		if err := json.Unmarshal([]byte(stdout), &crep); code != 0 || err != nil || len(crep.Rows) != 12 {
			t.Errorf("conform: exit %d, %v\n%s%s", code, err, stdout, stderr)
		}
	}

	for _, tc := range []struct {
		name string
		edit func(string) string
		want string
	}{
		{"unknown field", func(s string) string { return strings.Replace(s, `"caveat"`, `"caveats"`, 1) },
			"caveats: unknown field"},
		{"unknown variable", func(s string) string { return strings.Replace(s, `"content": "{content}"`, `"content": "{text}"`, 1) },
			"write.arguments.content: {text} is no variable here"},
	} {
		f := writeProfile(t, tc.edit)
		code, stdout, stderr := runCLI(t, "race", "--target", target, "--profile", f)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "notesbench: --profile: "+f+": "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %q", tc.name, code, stderr)
		}
	}

	f := writeProfile(t, func(s string) string { return strings.Replace(s, `"pointer": "/sha"`, `"pointer": "/blob_sha"`, 1) })
	code, _, stderr = runCLI(t, "race", "--target", target, "--profile", f, "--seeds", "1", "--edits", "2")
	if code != 1 || !strings.Contains(stderr, "profile github: read.version: a version at pointer /blob_sha found nothing in the reply \"{") {
		t.Errorf("an extraction that finds nothing: exit %d, %q", code, stderr)
	}

	code, _, stderr = runCLI(t, "create", "--target", target, "--profile", "github")
	if code != 1 || !strings.HasPrefix(stderr, "notesbench: profile github maps no create or list, which create needs (target "+target+" lists create_or_update_file, get_file_contents)") {
		t.Errorf("create through a profile without a create: exit %d, %q", code, stderr)
	}

	// Without a profile the same server lacks the contract's tools: one
	// line naming those race needs and those it lists; conform still
	// writes its clause list, tools/list failing.
	code, stdout, stderr = runCLI(t, "race", "--target", target)
	if code != 1 || stdout != "" || stderr != "notesbench: target "+target+" lacks the tools read_note_tab, edit_note_tab, which race needs; it lists create_or_update_file, get_file_contents\n" {
		t.Errorf("race on a server without the contract's tools: exit %d, %q", code, stderr)
	}
	code, stdout, _ = conformCLI(t, "--target", target, "--format", "json")
	crep.Rows = nil
	if err := json.Unmarshal([]byte(stdout), &crep); code != 1 || err != nil || len(crep.Rows) != 12 ||
		crep.Rows[0].Name != "tools/list" || crep.Rows[0].Outcome != results.ConformFail || crep.Rows[1].Outcome != results.ConformNotApplicable {
		t.Errorf("conform on a server without the contract's tools: exit %d, %v\n%s", code, err, stdout)
	}
}

// A profile that names a tool the server does not list: every command that
// calls it says which tools are missing and which the server lists, in the
// one line docs/profiles.md shows, exit 1, not the server's -32602 unknown
// tool from the profile's trial before the runs.
func TestProfileToolTheServerLacks(t *testing.T) {
	endToEnd(t)
	target := ghshapeTarget(t)
	f := writeProfile(t, func(s string) string {
		return strings.Replace(s, `"tool": "get_file_contents"`, `"tool": "read_text_file"`, 1)
	})
	for _, cmd := range []string{"race", "bench", "crash"} {
		code, stdout, stderr := runCLI(t, cmd, "--target", target, "--profile", f)
		want := "notesbench: target " + target + " lacks the tool read_text_file, which " + cmd + " needs; it lists create_or_update_file, get_file_contents\n"
		if code != 1 || stdout != "" || stderr != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", cmd, code, stdout, stderr, want)
		}
	}
}
