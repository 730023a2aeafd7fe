package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// MaxLines bounds the lines of every Go file of the project but its tests:
// a file past it holds more than one thing, and is cut where its concepts
// part.
const MaxLines = 800

// MaxComplexity bounds the cyclomatic complexity of every function of the
// project (its tests aside): one more than the branches it takes (each if,
// for, case and select case, && and ||). A function above it does several
// things, and is split into functions that each say what they do.
const MaxComplexity = 30

// complexity is the cyclomatic complexity of a function's body.
func complexity(body *ast.BlockStmt) int {
	n := 1
	ast.Inspect(body, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil { // default takes no branch of its own
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// functions returns, for every function of the Go files under root but
// tests and testdata, its place and name, with its complexity; and each
// file's lines.
func functions(t *testing.T, root string) (fns, lines map[string]int) {
	t.Helper()
	out, lines := map[string]int{}, map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root:
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		lines[rel] = fset.File(f.Pos()).LineCount()
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				out[fmt.Sprintf("%s:%d %s", rel, fset.Position(fd.Pos()).Line, fd.Name.Name)] = complexity(fd.Body)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, lines
}

// No function of the project is above MaxComplexity, and no file above
// MaxLines.
func TestComplexity(t *testing.T) {
	fns, lines := functions(t, "../..")
	for file, n := range lines {
		if n > MaxLines {
			t.Errorf("%s: %d lines, above %d: cut it where its concepts part", file, n, MaxLines)
		}
	}
	if len(fns) < 500 {
		t.Fatalf("found %d functions: the test sees too little", len(fns))
	}
	for name, n := range fns {
		if n > MaxComplexity {
			t.Errorf("%s: cyclomatic complexity %d, above %d: split it", name, n, MaxComplexity)
		}
	}
}

// The measure counts what it says: a function of one branch of each kind.
func TestComplexityCounts(t *testing.T) {
	src := `package p
func f(a, b bool, c chan int) {
	if a && b || a {
	}
	for range c {
	}
	switch {
	case a:
	case b:
	default:
	}
	select {
	case <-c:
	default:
	}
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 1, if 1, && 1, || 1, range 1, two cases 2, a select case 1.
	if got := complexity(f.Decls[0].(*ast.FuncDecl).Body); got != 8 {
		t.Errorf("complexity %d, want 8", got)
	}
}
