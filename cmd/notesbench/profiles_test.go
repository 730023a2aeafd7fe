package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/mcpclient/profile"
)

// profiles lists every built-in profile with the server and version it was
// written for, its write and its guard; profiles show prints one as it is
// built in, which reads back as that profile.
func TestProfilesCommand(t *testing.T) {
	code, out, stderr := runCLI(t, "profiles")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(profile.Builtins())+1 || !strings.HasPrefix(lines[0], "NAME ") {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for i, name := range profile.Builtins() {
		p, err := profile.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(lines[i+1])
		if f[0] != name || !strings.Contains(lines[i+1], p.Server) || !strings.Contains(lines[i+1], p.Write.Tool+" ("+string(p.Write.Mode())+")") {
			t.Errorf("line for %s: %q", name, lines[i+1])
		}
	}
	fsRow := lines[1+slices.Index(profile.Builtins(), "filesystem")]
	if f := strings.Fields(fsRow); f[0] != "filesystem" || f[1] != "@modelcontextprotocol/server-filesystem" || f[2] != "2026.8.31" {
		t.Errorf("no filesystem row with its server's version:\n%s", out)
	}

	code, out, stderr = runCLI(t, "profiles", "show", "memory")
	want, _ := profile.BuiltinJSON("memory")
	if code != 0 || stderr != "" || out != string(want) {
		t.Errorf("show memory: exit %d, %s\n%s", code, stderr, out)
	}
	if p, err := profile.Parse([]byte(out), "shown"); err != nil || p.Name != "memory" {
		t.Errorf("what show prints does not read back: %v", err)
	}
	all := strings.Join(profile.Builtins(), ", ")
	expectUsageError(t, []string{"profiles", "show", "nosuch"}, "notesbench: profiles show: nosuch: no such built-in profile (built-in: "+all+")")
	expectUsageError(t, []string{"profiles", "show", "../profile/schema"}, "notesbench: profiles show: ../profile/schema: no such built-in profile")
	expectUsageError(t, []string{"profiles", "show"}, "notesbench: profiles show takes one built-in profile's name, 0 given (built-in: "+all+")")
	expectUsageError(t, []string{"profiles", "list"}, `notesbench: unknown command "list" for "notesbench profiles"`)
}

// --keep with --target skips the profile's teardown and names each
// document it left; without it the teardown runs and nothing is named.
func TestKeepOnATarget(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("spawns servers")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	prof := writeProfile(t, func(s string) string {
		return strings.Replace(s, `"errors": [`, `"teardown": [{"tool": "get_file_contents", "arguments": {"owner": "{owner}", "repo": "{repo}", "branch": "{branch}", "path": "{document}"}}],
  "errors": [`, 1)
	})
	target := ghshapeTarget(t)
	for _, keep := range []bool{false, true} {
		args := []string{"race", "--target", target, "--profile", prof, "--seeds", "1", "--edits", "2", "--pause", "0", "--modes", "note/reapply"}
		if keep {
			args = append(args, "--keep")
		}
		code, _, stderr := runCLI(t, args...)
		kept := regexp.MustCompile(`(?m)^notesbench: kept document notesbench/race-note-reapply-seed1\.[0-9a-f]{8}/note-1\.md on stdio:`)
		if code != 0 || kept.MatchString(stderr) != keep {
			t.Errorf("keep %v: exit %d, stderr %q", keep, code, stderr)
		}
	}
}

// profiles schema prints the schema notesbench checks every profile
// against, whole, as JSON an editor reads; an argument is refused.
func TestProfilesSchema(t *testing.T) {
	code, out, stderr := runCLI(t, "profiles", "schema")
	if code != 0 || stderr != "" || out != string(profile.Schema()) {
		t.Fatalf("exit %d: %s\n%.200s", code, stderr, out)
	}
	var s struct {
		Schema string `json:"$schema"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || !strings.Contains(s.Schema, "json-schema.org") {
		t.Errorf("not a JSON Schema: %v %q", err, s.Schema)
	}
	if code, out, _ := runCLI(t, "profiles", "schema", "memory"); code != 2 || out != "" {
		t.Errorf("with an argument: exit %d, %q", code, out)
	}
}
