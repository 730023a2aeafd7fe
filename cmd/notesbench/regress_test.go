package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/testpass"
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

// Every committed baseline matches its command, and a baseline with one count
// changed fails with exit code 1. This is what make regress checks, on the
// built binary, in CI; under the race detector or -short the runs of the
// published setups are left to it, and only the gate's failure is checked.
func TestRegressBaselines(t *testing.T) {
	t.Parallel() // it runs beside the other large tests, whose time is mostly waiting on child processes
	lines := regressLines(t)
	if len(lines) < 10 {
		t.Fatalf("REGRESS lists %d experiments", len(lines))
	}
	for _, line := range lines {
		if testing.Short() || testpass.Race {
			break
		}
		base := filepath.Join("..", "..", "results", "baselines", line.name+".json")
		t.Run(line.name, func(t *testing.T) {
			if code, _, stderr := runCLI(t, append(line.args, "--baseline", base)...); code != 0 {
				t.Fatalf("against %s: exit %d: %s", base, code, stderr)
			}
		})
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
