package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// names returns the names in dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	for _, content := range []string{"first\n", "second, longer\n"} {
		err := Write(path, 0o640, func(w io.Writer) error {
			_, err := io.WriteString(w, content)
			return err
		})
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("content = %q, %v, want %q", got, err, content)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.json"}) {
		t.Errorf("directory holds %q, want only out.json", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
	}
}

func TestWriteErrorLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) || err.Error() != "writing "+path+": boom" {
		t.Errorf("Write error = %v, want writing %s: boom", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("old content changed to %q", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.json"}) {
		t.Errorf("directory holds %q, want only out.json", got)
	}
}

func TestWriteErrorLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "new.md"), 0o644, func(w io.Writer) error { return errors.New("no") })
	if err == nil {
		t.Fatal("Write returned nil for a failing fn")
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("directory holds %q, want nothing", got)
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope")
	called := false
	err := Write(filepath.Join(missing, "out.json"), 0o644, func(w io.Writer) error {
		called = true
		return nil
	})
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Write into a missing directory: error %v, want one wrapping os.ErrNotExist", err)
	}
	if called {
		t.Error("fn was called although there is nowhere to write")
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("directory holds %q, want nothing", got)
	}
}
