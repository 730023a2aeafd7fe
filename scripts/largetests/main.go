// Command largetests runs the second pass of notesbench's tests (make
// test-large): the tests the first pass (make test, under the race
// detector) left out or ran smaller, and no other.
//
// A top-level test is large when its body, or a function or variable of
// its package's test files that it refers to (through any number of
// others), refers to internal/testpass: testpass.Large, testpass.Sized or
// testpass.Race. The command reads every package's test files, finds those
// tests, and runs go test on them alone: one -run pattern over the packages
// that have any. Where a large test's name is also a test, not large, of
// another of those packages, the two packages run in separate go test
// invocations, so that neither runs the other's. The invocations run at
// once; the output of each after the first is written when it ends.
//
// Usage:
//
//	go run ./scripts/largetests [-list] [-first 'DIR ...'] [go test flags]
//
// -list prints the large tests, one package a line, and runs nothing.
// -first names packages by folder (./mcpclient), space-separated, to start
// before the others, in that order: go test starts packages in the order it
// is given them, and the longest, started last, would run alone at the end.
// Every other argument goes to go test (e.g. -count=1 -timeout 30m -json).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

const testpassPath = "github.com/notesbench/notesbench/internal/testpass"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	list := false
	var first, goArgs []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-list":
			list = true
		case a == "-first" && i+1 < len(args):
			first = strings.Fields(args[i+1])
			i++
		default:
			goArgs = append(goArgs, a)
		}
	}
	pkgs, err := goList()
	if err != nil {
		fmt.Fprintln(stderr, "largetests:", err)
		return 1
	}
	if err := startFirst(pkgs, first); err != nil {
		fmt.Fprintln(stderr, "largetests: -first:", err)
		return 2
	}
	large := map[string][]string{} // import path -> large tests
	var paths []string
	for _, p := range pkgs {
		l, all, err := largeTests(p)
		if err != nil {
			fmt.Fprintln(stderr, "largetests:", err)
			return 1
		}
		p.all = all
		if len(l) > 0 {
			large[p.ImportPath] = l
			paths = append(paths, p.ImportPath)
		}
	}
	if list {
		for _, p := range paths {
			fmt.Fprintf(stdout, "%s: %s\n", p, strings.Join(large[p], " "))
		}
		return 0
	}
	// The invocations run at once, so that the second does not wait for the
	// first's longest package: the first writes as it goes, each other into a
	// buffer written after it, whole, in order.
	gs := groups(pkgs, large, paths)
	outs := make([]bytes.Buffer, len(gs))
	codes := make([]int, len(gs))
	errs := make([]error, len(gs))
	var wg sync.WaitGroup
	for i, group := range gs {
		var names []string
		for _, p := range group {
			names = append(names, large[p]...)
		}
		slices.Sort(names)
		names = slices.Compact(names)
		cmdArgs := append([]string{"test", "-run", "^(" + strings.Join(names, "|") + ")$"}, goArgs...)
		cmdArgs = append(cmdArgs, group...)
		cmd := exec.Command(goCommand(), cmdArgs...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if i > 0 {
			cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		}
		wg.Go(func() {
			err := cmd.Run()
			if err == nil {
				return
			}
			if exit, ok := err.(*exec.ExitError); ok {
				codes[i] = exit.ExitCode()
				return
			}
			errs[i], codes[i] = err, 1
		})
	}
	wg.Wait()
	for i := range outs[1:] {
		stdout.Write(outs[i+1].Bytes())
	}
	for _, err := range errs {
		if err != nil {
			fmt.Fprintln(stderr, "largetests:", err)
		}
	}
	return slices.Max(append(codes, 0))
}

// goCommand is $GO, or go.
func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// startFirst moves the packages in the folders first names to the front of
// pkgs, in first's order; the others keep theirs.
func startFirst(pkgs []*pkg, first []string) error {
	rank := map[string]int{}
	for i, dir := range first {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(pkgs, func(p *pkg) bool { return p.Dir == abs }) {
			return fmt.Errorf("%s is no package of the module", dir)
		}
		rank[abs] = i + 1
	}
	at := func(p *pkg) int {
		if r, ok := rank[p.Dir]; ok {
			return r
		}
		return len(first) + 1
	}
	slices.SortStableFunc(pkgs, func(a, b *pkg) int { return at(a) - at(b) })
	return nil
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath   string
	Dir          string
	TestGoFiles  []string
	XTestGoFiles []string
	// all is every top-level test of the package.
	all []string
}

func goList() ([]*pkg, error) {
	out, err := exec.Command(goCommand(), "list", "-json", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []*pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		pkgs = append(pkgs, &p)
	}
	return pkgs, nil
}

// largeTests returns the large tests of p, and all its top-level tests.
func largeTests(p *pkg) (large, all []string, err error) {
	fset := token.NewFileSet()
	// refs holds, for each function or variable declared in the test files
	// (by name; methods by their name alone), the names it refers to;
	// marked those that refer to testpass themselves.
	refs := map[string]map[string]bool{}
	marked := map[string]bool{}
	var tests []string
	for _, name := range slices.Concat(p.TestGoFiles, p.XTestGoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		local := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == testpassPath {
				local = "testpass"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		declare := func(name string, node ast.Node) {
			set := refs[name]
			if set == nil {
				set = map[string]bool{}
				refs[name] = set
			}
			ast.Inspect(node, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && local != "" && id.Name == local {
						marked[name] = true
					}
				case *ast.Ident:
					set[n.Name] = true
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv == nil && isTest(d) {
					tests = append(tests, name)
				}
				if d.Body != nil {
					declare(name, d.Body)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if v, ok := s.(*ast.ValueSpec); ok {
						for _, n := range v.Names {
							declare(n.Name, v)
						}
					}
				}
			}
		}
	}
	// A name is marked when it refers to a marked one.
	for changed := true; changed; {
		changed = false
		for name, set := range refs {
			if marked[name] {
				continue
			}
			for r := range set {
				if r != name && marked[r] {
					marked[name] = true
					changed = true
					break
				}
			}
		}
	}
	for _, t := range tests {
		if marked[t] {
			large = append(large, t)
		}
	}
	sort.Strings(large)
	return large, tests, nil
}

var testName = regexp.MustCompile(`^Test([A-Z_0-9]|$)`)

// isTest says whether d is a top-level test go test runs: TestXxx(t
// *testing.T), TestMain aside.
func isTest(d *ast.FuncDecl) bool {
	if d.Name.Name == "TestMain" || !testName.MatchString(d.Name.Name) || d.Type.Params == nil || len(d.Type.Params.List) != 1 {
		return false
	}
	star, ok := d.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// groups splits paths, in order, into the go test invocations of the pass:
// as few as can be, none holding a package with a test, not large, named
// as a large test of another package of the same invocation.
func groups(pkgs []*pkg, large map[string][]string, paths []string) [][]string {
	all := map[string][]string{}
	for _, p := range pkgs {
		all[p.ImportPath] = p.all
	}
	// clash says whether a and b cannot share one -run pattern.
	clash := func(a, b string) bool {
		for _, t := range large[a] {
			if slices.Contains(all[b], t) && !slices.Contains(large[b], t) {
				return true
			}
		}
		return false
	}
	var out [][]string
	for _, p := range paths {
		placed := false
		for i, g := range out {
			if !slices.ContainsFunc(g, func(q string) bool { return clash(p, q) || clash(q, p) }) {
				out[i] = append(g, p)
				placed = true
				break
			}
		}
		if !placed {
			out = append(out, []string{p})
		}
	}
	return out
}
