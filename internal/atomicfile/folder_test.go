package atomicfile

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listTree lists the files and folders under dir, with their contents.
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(path)
		out[rel] = string(b)
		return nil
	})
	return out
}

// A folder is written whole or not at all: when a file cannot be written (a
// full disk, here a plot whose drawing fails), a new folder is not left
// behind (an empty plots/ tree was), and a folder written before is left as
// it was.
func TestWriteFolderWholeOrNothing(t *testing.T) {
	version := "test"
	files := func(full bool) func(dir string) error {
		return func(dir string) error {
			if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "plots", "race-none-lost.svg"), []byte("<svg/>"), 0o644); err != nil {
				return err
			}
			if full {
				return errors.New("no space left on device")
			}
			for _, name := range []string{"REPRODUCED.md", "reproduced.json"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"version": "`+version+`"}`), 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	parent := t.TempDir()
	out := filepath.Join(parent, "reproduction")
	if err := WriteFolder(out, "REPRODUCED.md", files(true)); err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("err %v", err)
	}
	if left := listTree(t, parent); len(left) != 0 {
		t.Fatalf("a failed write left %v", left)
	}
	if err := WriteFolder(out, "REPRODUCED.md", files(false)); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, out)
	if _, ok := before["plots/race-none-lost.svg"]; !ok || before["REPRODUCED.md"] == "" || before["reproduced.json"] == "" {
		t.Fatalf("the write wrote %v", slices.Sorted(maps.Keys(before)))
	}
	version = "test 2"
	if err := WriteFolder(out, "REPRODUCED.md", files(true)); err == nil {
		t.Fatal("no error")
	}
	if after := listTree(t, out); !maps.Equal(after, before) {
		t.Fatalf("a failed write changed the folder written before: %v", slices.Sorted(maps.Keys(after)))
	}
	if err := WriteFolder(out, "REPRODUCED.md", files(false)); err != nil {
		t.Fatal(err)
	}
	if after := listTree(t, out); !strings.Contains(after["reproduced.json"], `"test 2"`) || len(after) != len(before) {
		t.Fatalf("the second write wrote %v", slices.Sorted(maps.Keys(after)))
	}
}
