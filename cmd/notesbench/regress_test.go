package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// regressLines reads the REGRESS list of the Makefile: each entry is an
// experiment and its arguments.
func regressLines(t *testing.T) [][]string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)REGRESS = \\\n(.*?)\n\n`).FindSubmatch(mk)
	if block == nil {
		t.Fatal("no REGRESS list in the Makefile")
	}
	var out [][]string
	for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllSubmatch(block[1], -1) {
		out = append(out, strings.Fields(string(m[1])))
	}
	return out
}

// Every committed baseline matches its command (what make regress checks), and a
// baseline with one count changed fails with exit code 1.
func TestRegressBaselines(t *testing.T) {
	lines := regressLines(t)
	if len(lines) < 8 {
		t.Fatalf("REGRESS lists %d experiments", len(lines))
	}
	for _, args := range lines {
		name := args[0]
		base := filepath.Join("..", "..", "results", "baselines", name+".json")
		t.Run(name, func(t *testing.T) {
			if code, _, stderr := runCLI(t, append(args, "--baseline", base)...); code != 0 {
				t.Fatalf("against %s: exit %d: %s", base, code, stderr)
			}
		})
	}
	// Edit one count of the race baseline: the gate must fail.
	b, err := os.ReadFile(filepath.Join("..", "..", "results", "baselines", "race.json"))
	if err != nil {
		t.Fatal(err)
	}
	edited := regexp.MustCompile(`"lost_human": (\d+)`).ReplaceAll(b, []byte(`"lost_human": 9999`))
	path := filepath.Join(t.TempDir(), "race.json")
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, append(lines[0], "--baseline", path)...)
	if code != 1 || !strings.Contains(stderr, "lost_human: baseline 9999") {
		t.Fatalf("edited baseline: exit %d, stderr %q", code, stderr)
	}
}
