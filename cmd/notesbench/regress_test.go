package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// regressLine is one entry of the Makefile's REGRESS list: the baseline's
// name (results/baselines/NAME.json) and the command line.
type regressLine struct {
	name string
	args []string
}

// regressLines reads the REGRESS list of the Makefile: each entry is an
// experiment and its arguments, its baseline named after the experiment, or
// after a first word "NAME:".
func regressLines(t *testing.T) []regressLine {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)REGRESS = \\\n(.*?)\n\n`).FindSubmatch(mk)
	if block == nil {
		t.Fatal("no REGRESS list in the Makefile")
	}
	var out []regressLine
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllSubmatch(block[1], -1) {
		args := strings.Fields(string(m[1]))
		line := regressLine{name: args[0], args: args}
		if name, ok := strings.CutSuffix(args[0], ":"); ok {
			line = regressLine{name: name, args: args[1:]}
		}
		if seen[line.name] {
			t.Fatalf("REGRESS names the baseline %s twice", line.name)
		}
		seen[line.name] = true
		out = append(out, line)
	}
	return out
}

// The gate fails on a baseline with one count changed, with exit code 1 and
// the figure named. That every committed baseline matches its command is
// make regress's to check, on the built binary, in CI: running the published
// setups here too ran each twice in CI.
func TestRegressBaselines(t *testing.T) {
	lines := regressLines(t)
	if len(lines) < 10 {
		t.Fatalf("REGRESS lists %d experiments", len(lines))
	}
	// Edit one figure of a committed baseline: the gate must fail.
	validate := lines[len(lines)-1].args
	if validate[0] != "validate" {
		t.Fatalf("REGRESS ends with %v, not validate", validate)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "results", "baselines", "validate.json"))
	if err != nil {
		t.Fatal(err)
	}
	edited := regexp.MustCompile(`"minimal": "ok"`).ReplaceAll(b, []byte(`"minimal": "not ok"`))
	path := filepath.Join(t.TempDir(), "validate.json")
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, append(validate, "--baseline", path)...)
	if code != 1 || !strings.Contains(stderr, `minimal: baseline "not ok", now "ok"`) {
		t.Fatalf("edited baseline: exit %d, stderr %q", code, stderr)
	}
}
