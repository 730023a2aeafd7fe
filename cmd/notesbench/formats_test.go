package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/report"
)

// offeredFormats are the formats each command's --format offers, as its
// help and completion list them: what the command's output holds decides
// them (report.FormatNames), and this pins the lists users see.
var offeredFormats = map[string][]string{
	"audit":     {"table", "markdown", "json", "html"},
	"check":     {"table", "markdown", "csv", "json"},
	"conform":   {"table", "markdown", "json"},
	"crash":     {"table", "markdown", "csv", "json"},
	"merge":     {"table", "markdown", "csv", "json", "gobench"},
	"reproduce": {"table", "markdown", "json"},
}

func init() {
	for _, d := range experiments.All() {
		formats := []string{"table", "markdown", "csv", "json"}
		if d.Info().GoBench {
			formats = append(formats, "gobench")
		}
		offeredFormats[d.Info().Name] = formats
	}
}

// formatUsage is the choice --format's usage lists.
var formatUsage = regexp.MustCompile(`^output format: (.*) \(default table on a terminal, markdown otherwise\)$`)

// Every command with --format offers the formats pinned above, in its help
// and its completion alike, and each is a format of report's, whose tests
// show it has a renderer (TestEveryFormatRenders).
func TestOfferedFormatsHaveRenderers(t *testing.T) {
	seen := map[string]bool{}
	for name, cmd := range helpCommands(t) {
		f := cmd.Flags().Lookup("format")
		if f == nil {
			continue
		}
		seen[name] = true
		want, ok := offeredFormats[name]
		if !ok {
			t.Errorf("%s has --format, but offeredFormats does not list it", name)
			continue
		}
		m := formatUsage.FindStringSubmatch(f.Usage)
		if m == nil || m[1] != contract.Choice(want) {
			t.Errorf("%s --format usage %q, want the choice %q", name, f.Usage, contract.Choice(want))
		}
		complete, ok := cmd.GetFlagCompletionFunc("format")
		if !ok {
			t.Errorf("%s --format completes nothing", name)
			continue
		}
		if got, _ := complete(cmd, nil, ""); !slices.Equal(got, want) {
			t.Errorf("%s --format completes to %q, want %q", name, got, want)
		}
		for _, format := range want {
			if _, err := report.Formats.Parse(format); err != nil {
				t.Errorf("%s offers %s, which has no renderer: %v", name, format, err)
			}
		}
	}
	for name := range offeredFormats {
		if !seen[name] {
			t.Errorf("offeredFormats lists %s, which has no --format", name)
		}
	}
}

// A --format a command does not offer is one line naming the formats it
// does, exit 2, before anything runs.
func TestBadFormatIsOneLine(t *testing.T) {
	dir := t.TempDir()
	race := []string{"race", "--clock", "virtual", "--seeds", "1-2", "--edits", "3", "--replications", "0"}
	s1, s2 := filepath.Join(dir, "s1.json"), filepath.Join(dir, "s2.json")
	for i, s := range []string{s1, s2} {
		if code, _, stderr := runCLI(t, append(slices.Clone(race), "--shard", []string{"1/2", "2/2"}[i], "--out", s)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i+1, code, stderr)
		}
	}
	args := map[string][]string{"check": {filepath.Join(dir, "missing.jsonl")}, "conform": {"--target", "embedded"}, "merge": {s1, s2}}
	for name, formats := range offeredFormats {
		if name == "merge" {
			formats = offeredFormats["race"] // the formats of the experiment its shards ran
		}
		for _, bad := range []string{"yaml", "JSON"} {
			argv := append([]string{name, "--format", bad}, args[name]...)
			code, stdout, stderr := runCLI(t, argv...)
			want := `notesbench: --format: unknown format "` + bad + `" (want ` + contract.Choice(formats) + ")\n"
			if code != 2 || stdout != "" || stderr != want {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", argv, code, stdout, stderr, want)
			}
		}
	}
}
