package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// A test is large when it refers to testpass, directly, through a helper
// of any depth or through a variable; TestMain and functions go test does
// not run as tests never are, and a test that refers to none is not.
func TestLargeTests(t *testing.T) {
	p := &pkg{ImportPath: "p", Dir: filepath.Join("testdata", "p"), TestGoFiles: []string{"p_test.go"}}
	large, all, err := largeTests(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"TestDirect", "TestThroughHelper", "TestThroughVar"}; !slices.Equal(large, want) {
		t.Errorf("large %v, want %v", large, want)
	}
	if want := []string{"TestDirect", "TestThroughHelper", "TestThroughVar", "TestSmall"}; !slices.Equal(all, want) {
		t.Errorf("all %v, want %v", all, want)
	}
}

// Packages share one go test invocation unless one's large test is named
// as a test of the other that is not large.
func TestGroups(t *testing.T) {
	pkgs := []*pkg{
		{ImportPath: "a", all: []string{"TestContract", "TestA"}},
		{ImportPath: "b", all: []string{"TestContract"}},
		{ImportPath: "c", all: []string{"TestC", "TestContract"}},
	}
	large := map[string][]string{"a": {"TestContract"}, "b": {"TestContract"}, "c": {"TestC"}}
	got := groups(pkgs, large, []string{"a", "b", "c"})
	if want := [][]string{{"a", "b"}, {"c"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("groups %v, want %v", got, want)
	}
}

// -first puts the packages it names before the others, in its order, and
// refuses a folder that is no package.
func TestStartFirst(t *testing.T) {
	abs := func(dir string) string {
		a, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	pkgs := []*pkg{{ImportPath: "a", Dir: abs("a")}, {ImportPath: "b", Dir: abs("b")}, {ImportPath: "c", Dir: abs("c")}, {ImportPath: "d", Dir: abs("d")}}
	if err := startFirst(pkgs, []string{"./c", "b"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pkgs {
		got = append(got, p.ImportPath)
	}
	if want := []string{"c", "b", "a", "d"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if err := startFirst(pkgs, []string{"./nowhere"}); err == nil || err.Error() != "./nowhere is no package of the module" {
		t.Errorf("a folder that is no package: %v", err)
	}
}
