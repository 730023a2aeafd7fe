package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedNames are the exported type names declared in more than one package
// that stay so for now, each with why. The list must stay short: a name
// added here needs a reason a reviewer accepts, and an entry whose name is
// declared once again fails the test.
var sharedNames = map[string]string{
	// One meaning: an implementation of the contract's interface of that
	// name, or the two stores; the package says which implementation.
	"Target":  "contract.Target and its implementations: store, pgstore, mcpclient",
	"Session": "contract.Session and pgstore's implementation of it",
	"Store":   "the two stores, store.Store (SQLite) and pgstore.Store (PostgreSQL)",
	"Options": "the options of a package's one entry point (check.Run, conform.Run, audit.Run, reproduce.Run, clientaudit.Run, store, serve, mcpclient, experiment), named by the package",
	"Clock":   "one meaning, what tells the time: contract.Clock, the time a store reads; sim.Clock, one that also sleeps the editors and schedules them, embedding contract.Clock",
	"Row":     "one meaning, a row of an experiment's table: results.Row, what every row offers; experiments/<name>.Row, one experiment's",
	"Run":     "one run of an experiment: history.Run, the calls it recorded; experiments/<name>.Run, what it counted",
	"Config":  "the configuration of a package's one runnable thing: an experiment's (experiments/<name>.Config), the contract suite's (contracttest.Config)",
	"Error":   "one meaning, an error naming what it is about: field.Error (a field), profile.Error (a profile's field), pgstore.Error (the database), told apart by errors.As",
}

// exportedTypes returns, for each exported type name declared in the
// module's non-test files, the packages (folders) that declare it.
func exportedTypes(t *testing.T, root string) map[string][]string {
	t.Helper()
	decl := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				if n := s.(*ast.TypeSpec).Name; n.IsExported() && !slices.Contains(decl[n.Name], pkg) {
					decl[n.Name] = append(decl[n.Name], pkg)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return decl
}

// unshared returns what breaks the names rule in decl: a name declared in
// two packages that sharedNames does not list, an entry of sharedNames
// declared once.
func unshared(decl map[string][]string) []string {
	var out []string
	for _, name := range sortedKeys(decl) {
		pkgs := decl[name]
		if _, ok := sharedNames[name]; len(pkgs) > 1 && !ok {
			out = append(out, fmt.Sprintf("type %s is declared in %s: one name, one meaning (rename one, or say in sharedNames why both stay)", name, strings.Join(pkgs, ", ")))
		}
	}
	for _, name := range sortedKeys(sharedNames) {
		if len(decl[name]) < 2 {
			out = append(out, fmt.Sprintf("sharedNames lists %s, declared in %s only: take it off the list", name, strings.Join(decl[name], ", ")))
		}
	}
	return out
}

// One exported type name means one thing across the module: no name is
// declared in two packages but those sharedNames lists, with why.
func TestTypeNamesAreOneMeaning(t *testing.T) {
	decl := exportedTypes(t, "../..")
	if len(decl) < 100 {
		t.Fatalf("found %d exported type names: the test sees too little", len(decl))
	}
	for _, v := range unshared(decl) {
		t.Error(v)
	}
}

// The names rule catches a second declaration of a name, and an allowed name
// that no longer needs to be.
func TestTypeNamesCatchDuplicates(t *testing.T) {
	decl := exportedTypes(t, "../..")
	if len(decl["CheckReport"]) != 1 {
		t.Fatalf("CheckReport declared in %v", decl["CheckReport"])
	}
	decl["CheckReport"] = append(decl["CheckReport"], "check")
	if got := unshared(decl); len(got) != 1 || !strings.Contains(got[0], "type CheckReport is declared in results, check") {
		t.Errorf("a second CheckReport: %q", got)
	}
	decl["CheckReport"] = decl["CheckReport"][:1]
	decl["Store"] = decl["Store"][:1]
	if got := unshared(decl); len(got) != 1 || !strings.Contains(got[0], "sharedNames lists Store") {
		t.Errorf("Store declared once: %q", got)
	}
}
