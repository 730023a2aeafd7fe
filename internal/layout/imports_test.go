package layout

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/notesbench/notesbench/"

// A rule is one import rule: a package that imports what it must not.
type rule struct {
	why string
	// broken returns the imports of pkg (both without the module path) that
	// break the rule.
	broken func(pkg string, imports []string) []string
}

// rules are the import rules the README's Layout states.
var rules = []rule{
	{"only backend (and the crash harness and the benchmark peer) name a store", func(pkg string, imports []string) []string {
		if pkg == "backend" || pkg == "internal/crash" || pkg == "scripts/peers/engine" {
			return nil
		}
		return pick(imports, "store", "pgstore")
	}},
	{"check imports only contract, history, the counted nouns, the standard library and its checker", func(pkg string, imports []string) []string {
		if pkg != "check" {
			return nil
		}
		var out []string
		for _, imp := range imports {
			if !std(imp) && imp != "contract" && imp != "history" && imp != "internal/plural" && imp != "github.com/anishathalye/porcupine" {
				out = append(out, imp)
			}
		}
		return out
	}},
	{"mcpclient never imports serve: names both need live in contract", func(pkg string, imports []string) []string {
		if pkg != "mcpclient" {
			return nil
		}
		return pick(imports, "serve")
	}},
	{"contract imports no other package of the project", func(pkg string, imports []string) []string {
		if pkg != "contract" {
			return nil
		}
		var out []string
		for _, imp := range imports {
			if own(imp) {
				out = append(out, imp)
			}
		}
		return out
	}},
	{"report and results never import sim", func(pkg string, imports []string) []string {
		if pkg != "report" && pkg != "results" {
			return nil
		}
		return pick(imports, "sim")
	}},
	{"the stores know the contract and their database, nothing of runs or output", func(pkg string, imports []string) []string {
		if pkg != "store" && pkg != "pgstore" {
			return nil
		}
		return pick(imports, "sim", "results", "report", "experiment")
	}},
	{"only cmd parses flags", func(pkg string, imports []string) []string {
		if pkg == "cmd/notesbench" {
			return nil
		}
		return pick(imports, "github.com/spf13/cobra", "github.com/spf13/pflag")
	}},
}

// pick returns the imports among names.
func pick(imports []string, names ...string) []string {
	var out []string
	for _, imp := range imports {
		if slices.Contains(names, imp) {
			out = append(out, imp)
		}
	}
	return out
}

// own reports whether an import, with the module path cut, is the project's.
func own(imp string) bool { return !strings.Contains(imp, ".") && !std(imp) }

// stdlib holds the packages of the standard library, as go list says.
var stdlib = map[string]bool{}

// std reports whether an import is of the standard library.
func std(imp string) bool { return stdlib[imp] }

// violations returns every broken rule of pkgs, package → imports.
func violations(pkgs map[string][]string) []string {
	var out []string
	for _, pkg := range sortedKeys(pkgs) {
		for _, r := range rules {
			if bad := r.broken(pkg, pkgs[pkg]); len(bad) > 0 {
				out = append(out, fmt.Sprintf("%s imports %s: %s", pkg, strings.Join(bad, ", "), r.why))
			}
		}
	}
	return out
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// goList returns every package of the module and its imports (tests left
// out), the module path cut from both.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Standard}} {{join .Imports \" \"}}", "-deps", "../../...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		if f[1] == "true" {
			stdlib[f[0]] = true
			continue
		}
		if !strings.HasPrefix(f[0], module) {
			continue
		}
		var imports []string
		for _, imp := range f[2:] {
			imports = append(imports, strings.TrimPrefix(imp, module))
		}
		pkgs[strings.TrimPrefix(f[0], module)] = imports
	}
	return pkgs
}

// Every package keeps the import rules.
func TestImportRules(t *testing.T) {
	pkgs := goList(t)
	if len(pkgs) < 15 {
		t.Fatalf("go list found %d packages: the test sees too little", len(pkgs))
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// Each rule catches its violation when one is planted.
func TestImportRulesCatchViolations(t *testing.T) {
	pkgs := goList(t)
	for _, plant := range []struct{ pkg, imp string }{
		{"cmd/notesbench", "store"},
		{"sim", "pgstore"},
		{"check", "sim"},
		{"check", "github.com/google/uuid"},
		{"mcpclient", "serve"},
		{"contract", "internal/field"},
		{"report", "sim"},
		{"results", "sim"},
		{"store", "results"},
		{"sim", "github.com/spf13/pflag"},
	} {
		planted := map[string][]string{}
		for k, v := range pkgs {
			planted[k] = slices.Clone(v)
		}
		planted[plant.pkg] = append(planted[plant.pkg], plant.imp)
		if got := violations(planted); len(got) == 0 {
			t.Errorf("%s importing %s breaks no rule", plant.pkg, plant.imp)
		}
	}
}
