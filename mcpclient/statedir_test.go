package mcpclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/nemesis"
)

// {dir} in a stdio target's command is a fresh folder at each open of the
// target, kept across the server's restarts within it (a kill), and
// removed when the target closes.
func TestDirIsFreshAtEachOpen(t *testing.T) {
	tmp := t.TempDir()
	spec := helperTarget(t, DirPlaceholder+"/notes.db")
	opts := Options{TempDir: tmp, Faults: &nemesis.Faults{Kinds: []string{history.FaultKill}}}
	folders := func() []string {
		t.Helper()
		names, err := filepath.Glob(filepath.Join(tmp, "notesbench-dir-*", "notes.db"))
		if err != nil {
			t.Fatal(err)
		}
		return names
	}

	first, err := Dial(ctx, spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := faultyRun(t, first)
	s := sessionT(t, b)
	if _, err := edit(s, "1", "k1", "kept"); err != nil {
		t.Fatal(err)
	}
	if err := b.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := s.ReadNoteTab(ctx, "note-1", "markdown"); err != nil || r.Text != "kept" {
		t.Fatalf("after the server's restart: %+v %v; want what it held before", r, err)
	}
	if got := folders(); len(got) != 1 {
		t.Fatalf("folders holding the store after one open: %v", got)
	}

	second, err := Dial(ctx, spec, Options{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	b2 := openNote(t, second, "second")
	if r, err := sessionT(t, b2).ReadNoteTab(ctx, "note-1", "markdown"); err != nil || r.Text != "" {
		t.Fatalf("a second open: %+v %v; want a store of its own, empty", r, err)
	}
	if got := folders(); len(got) != 2 || filepath.Dir(got[0]) == filepath.Dir(got[1]) {
		t.Fatalf("folders holding the stores of two opens: %v", got)
	}
	if err := errorsOf(b.Close(), first.Close()); err != nil {
		t.Fatal(err)
	}
	if got := folders(); len(got) != 1 {
		t.Fatalf("after the first closed, folders %v; want the second's alone", got)
	}
	if err := errorsOf(b2.Close(), second.Close()); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("after both closed, %d entries left in the folder", len(left))
	}
	if !strings.Contains(first.Describe()+second.Describe(), DirPlaceholder) {
		t.Errorf("the target is not named as written: %q", first.Describe())
	}
}

// errorsOf returns the first of errs that is not nil.
func errorsOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// {dir} is a folder of the server's state: a URL naming it is refused
// before anything starts, and so nothing is made.
func TestDirInAURLIsRefused(t *testing.T) {
	tmp := t.TempDir()
	spec, err := Parse("http://127.0.0.1:1/" + DirPlaceholder + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Dial(ctx, spec, Options{TempDir: tmp})
	if err == nil || !strings.Contains(err.Error(), "names {dir} in its URL") {
		t.Fatalf("a URL naming {dir}: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("%d entries made for a refused target", len(left))
	}
}
