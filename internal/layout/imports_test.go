package layout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/notesbench/notesbench/"

// A graph is the packages the module links (tests left out), each with its
// direct imports, and what each of them links: every package it imports,
// directly or not. Paths of the module have the module path cut; the
// standard library's are left out.
type graph struct {
	imports map[string][]string
	links   map[string][]string
}

// A rule is one import rule: a package that imports, or links, what it must
// not.
type rule struct {
	why string
	// transitive says the rule is over what pkg links, not only what it
	// imports.
	transitive bool
	// broken returns the packages among imports (pkg's direct imports, or
	// everything it links for a transitive rule) that break the rule.
	broken func(pkg string, imports []string) []string
}

// The implementations of the contract seam, and what only they may link:
// the database drivers, the MCP SDK.
var (
	implementations = []string{"store", "pgstore", "mcpclient", "mcpclient/profile"}
	drivers         = []string{"github.com/jackc/", "github.com/modelcontextprotocol/", "modernc.org/sqlite", "zombiezen.com/go/sqlite"}
)

// knownExceptions are the rules the tree breaks today, each with why, so
// that a break is named here and not passed over. A rule listed here still
// runs on every other package. Remove an entry once it holds: the test fails
// on an exception that is no longer needed.
var knownExceptions = map[string]string{}

// rules are the import rules of ARCHITECTURE's "Never" list and the README's
// Layout.
var rules = []rule{
	{"only backend (and the crash harness, the benchmark peers and the experiments' test helpers) name a store", false, func(pkg string, imports []string) []string {
		if pkg == "backend" || pkg == "internal/crash" || pkg == "scripts/peers/engine" || pkg == "internal/pgbench" || pkg == "internal/simtest" {
			return nil
		}
		return pick(imports, "store", "pgstore")
	}},
	{"report, results, sim and check link no implementation of the contract, no database driver and no MCP SDK", true, func(pkg string, imports []string) []string {
		if !slices.Contains([]string{"report", "results", "sim", "check"}, pkg) {
			return nil
		}
		return append(pick(imports, implementations...), prefixed(imports, drivers...)...)
	}},
	{"report renders records it gets from results: it links neither check, conform, the crash harness, sim nor the audit", true, func(pkg string, imports []string) []string {
		if pkg != "report" {
			return nil
		}
		return pick(imports, "check", "conform", "internal/crash", "sim", "experiment", "internal/audit")
	}},
	{"check imports only contract, history, results, the counted nouns, the standard library and its checker", false, func(pkg string, imports []string) []string {
		if pkg != "check" {
			return nil
		}
		var out []string
		for _, imp := range imports {
			if imp != "contract" && imp != "history" && imp != "results" && imp != "internal/plural" && imp != "github.com/anishathalye/porcupine" {
				out = append(out, imp)
			}
		}
		return out
	}},
	{"check links neither sim nor a store: its verdicts are a second opinion", true, func(pkg string, imports []string) []string {
		if pkg != "check" {
			return nil
		}
		return pick(imports, "sim", "experiment", "store", "pgstore")
	}},
	{"mcpclient never links serve: names both need live in contract", true, func(pkg string, imports []string) []string {
		if pkg != "mcpclient" && pkg != "mcpclient/profile" {
			return nil
		}
		return pick(imports, "serve")
	}},
	{"nemesis links no experiment, no client and no store: a fault is made on what a client offers it", true, func(pkg string, imports []string) []string {
		if pkg != "nemesis" {
			return nil
		}
		return append(pick(imports, "sim", "experiment", "internal/audit", "results", "report", "backend", "serve"), append(pick(imports, implementations...), prefixed(imports, drivers...)...)...)
	}},
	{"contract links no other package of the project", true, func(pkg string, imports []string) []string {
		if pkg != "contract" {
			return nil
		}
		return own(imports)
	}},
	{"sim, the engine, links no experiment: each experiment is a package above it", true, func(pkg string, imports []string) []string {
		if pkg != "sim" {
			return nil
		}
		return append(pick(imports, "experiment", "experiments"), prefixed(imports, "experiments/")...)
	}},
	{"report and results never link sim, and sim never links report: sim renders nothing", true, func(pkg string, imports []string) []string {
		switch pkg {
		case "report", "results":
			return pick(imports, "sim")
		case "sim":
			return pick(imports, "report")
		}
		return nil
	}},
	{"the stores know the contract and their database, nothing of runs or output", true, func(pkg string, imports []string) []string {
		if pkg != "store" && pkg != "pgstore" {
			return nil
		}
		return pick(imports, "sim", "results", "report", "experiment")
	}},
	{"experiment, the experiments, the audit and the reproduction link no implementation of the contract: cmd hands them every target", true, func(pkg string, imports []string) []string {
		if pkg != "experiment" && pkg != "experiments" && !strings.HasPrefix(pkg, "experiments/") && pkg != "internal/audit" && pkg != "internal/reproduce" {
			return nil
		}
		return pick(imports, implementations...)
	}},
	{"cmd reaches a server through backend: it imports no client, only the profile format (profiles lists and shows them)", false, func(pkg string, imports []string) []string {
		if pkg != "cmd/notesbench" {
			return nil
		}
		return pick(imports, "mcpclient")
	}},
	{"only cmd parses flags (and internal/cli, what its commands share of the command line)", true, func(pkg string, imports []string) []string {
		if pkg == "cmd/notesbench" || pkg == "internal/cli" {
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

// prefixed returns the imports that start with one of prefixes.
func prefixed(imports []string, prefixes ...string) []string {
	var out []string
	for _, imp := range imports {
		for _, p := range prefixes {
			if strings.HasPrefix(imp, p) {
				out = append(out, imp)
				break
			}
		}
	}
	return out
}

// own returns the imports that are the project's (the module path cut:
// no dot in their first element).
func own(imports []string) []string {
	var out []string
	for _, imp := range imports {
		if !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
			out = append(out, imp)
		}
	}
	return out
}

// violations returns every broken rule of g, and every known exception that
// no longer breaks its rule.
func violations(g graph) []string {
	var out []string
	excepted := map[string]bool{}
	for _, pkg := range sortedKeys(g.imports) {
		if len(own([]string{pkg})) == 0 {
			continue // only the module's own packages are judged
		}
		for _, r := range rules {
			of, verb := g.imports[pkg], "imports"
			if r.transitive {
				of, verb = g.links[pkg], "links"
			}
			bad := r.broken(pkg, of)
			if len(bad) == 0 {
				continue
			}
			if knownExceptions[r.why] == pkg {
				excepted[r.why] = true
				continue
			}
			out = append(out, fmt.Sprintf("%s %s %s: %s", pkg, verb, strings.Join(bad, ", "), r.why))
		}
	}
	for _, why := range sortedKeys(knownExceptions) {
		if !excepted[why] {
			out = append(out, fmt.Sprintf("known exception %q for %s: the rule holds now, remove the exception", why, knownExceptions[why]))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// listed is what go list -json says of one package.
type listed struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// goList returns the module's import graph (tests left out), as go list
// -deps -json says it. The links of each package are the closure of the
// direct imports, so that an import planted by a test reaches everything
// above it; they must equal what go list itself gives as Deps.
func goList(t *testing.T) graph {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Imports,Deps", "../../...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	g := graph{imports: map[string][]string{}}
	deps := map[string][]string{}
	cut := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			if !std(p) {
				out = append(out, strings.TrimPrefix(p, module))
			}
		}
		return out
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var all []listed
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Standard {
			stdlib[p.ImportPath] = true
		}
		all = append(all, p)
	}
	for _, p := range all {
		if p.Standard {
			continue
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		g.imports[name] = cut(p.Imports)
		deps[name] = cut(p.Deps)
	}
	g.links = closure(g.imports)
	for pkg, want := range deps {
		got := slices.Sorted(slices.Values(g.links[pkg]))
		if !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Fatalf("the closure of %s's imports is %v, go list's Deps %v", pkg, got, want)
		}
	}
	return g
}

// stdlib holds the packages of the standard library, as go list says.
var stdlib = map[string]bool{}

// std reports whether a path is of the standard library.
func std(p string) bool { return stdlib[p] }

// closure returns, for every package of imports, every package it links.
func closure(imports map[string][]string) map[string][]string {
	links := map[string][]string{}
	var visit func(pkg string) []string
	visit = func(pkg string) []string {
		if l, ok := links[pkg]; ok {
			return l
		}
		links[pkg] = nil // a cycle (there is none in Go) ends here
		seen := map[string]bool{}
		for _, imp := range imports[pkg] {
			seen[imp] = true
			for _, d := range visit(imp) {
				seen[d] = true
			}
		}
		l := sortedKeys(seen)
		links[pkg] = l
		return l
	}
	for pkg := range imports {
		visit(pkg)
	}
	return links
}

// Every package keeps the import rules, over what it links and not only
// what it imports.
func TestImportRules(t *testing.T) {
	g := goList(t)
	if n := len(own(sortedKeys(g.imports))); n < 15 {
		t.Fatalf("go list found %d packages of the module: the test sees too little", n)
	}
	for _, v := range violations(g) {
		t.Error(v)
	}
}

// Each rule catches its violation when one is planted, also one that is
// only linked, through a package that imports it.
func TestImportRulesCatchViolations(t *testing.T) {
	g := goList(t)
	caught := map[string]bool{}
	for _, plant := range []struct{ pkg, imp string }{
		{"cmd/notesbench", "store"},
		{"cmd/notesbench", "mcpclient"},
		{"sim", "pgstore"},
		{"check", "sim"},
		{"check", "github.com/google/uuid"},
		{"mcpclient", "serve"},
		{"contract", "internal/field"},
		{"report", "sim"},
		{"results", "sim"},
		{"store", "results"},
		{"sim", "github.com/spf13/pflag"},
		// Linked, not imported: report → results → check.
		{"results", "check"},
		// results → internal/crash → store.
		{"results", "internal/crash"},
		// sim → history → mcpclient/profile → the MCP SDK.
		{"history", "mcpclient/profile"},
		// check → contract → pgstore.
		{"contract", "pgstore"},
		{"sim", "report"},
		{"check", "experiment"},
		// The audit composes experiments on the target cmd hands it.
		{"internal/audit", "mcpclient"},
		{"contract/ext", "serve"},
		{"nemesis", "sim"},
		// An experiment runs on the target cmd hands it; the engine knows none.
		{"experiments/race", "mcpclient"},
		{"sim", "experiment"},
		// nemesis → history → mcpclient/profile → the MCP SDK.
		{"nemesis", "mcpclient"},
	} {
		planted := graph{imports: map[string][]string{}}
		for k, v := range g.imports {
			planted.imports[k] = slices.Clone(v)
		}
		planted.imports[plant.pkg] = append(planted.imports[plant.pkg], plant.imp)
		planted.links = closure(planted.imports)
		got := violations(planted)
		if len(got) == 0 {
			t.Errorf("%s importing %s breaks no rule", plant.pkg, plant.imp)
		}
		for _, v := range got {
			for _, r := range rules {
				if strings.HasSuffix(v, ": "+r.why) {
					caught[r.why] = true
				}
			}
		}
	}
	// A rule no plant breaks is one whose deletion no test would notice.
	for _, r := range rules {
		if !caught[r.why] {
			t.Errorf("no planted violation breaks the rule %q", r.why)
		}
	}
}
