package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
)

// WriteFolder writes a folder of files at out with write, every file or
// none: write writes into a staging folder, whose files take their places in
// out once all are written. A new folder is staged beside out and renamed to
// it; an existing one is staged inside it, and its files are replaced one by
// one, those of its folders first, those at its top next and last (a file
// that links the rest) at the very end. When write fails (a full disk), the
// staging folder is removed and out is as it was: no empty folder left.
func WriteFolder(out, last string, write func(dir string) error) (err error) {
	out = filepath.Clean(out)
	_, statErr := os.Stat(out)
	exists := statErr == nil
	parent := filepath.Dir(out)
	if exists {
		parent = out
	}
	stage, err := os.MkdirTemp(parent, ".notesbench-staging-*")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(stage); rerr != nil && err == nil && exists {
			err = rerr
		}
	}()
	if err := write(stage); err != nil {
		return err
	}
	if !exists {
		if err := os.Chmod(stage, 0o755); err != nil {
			return err
		}
		return os.Rename(stage, out)
	}
	return moveInto(stage, out, last)
}

// moveInto moves the files under stage to the same places under dir, making
// the folders they need: the files of folders first, then those at the top,
// the one called last at the end.
func moveInto(stage, dir, last string) error {
	entries, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() {
			files = append(files, e.Name())
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, e.Name()), 0o755); err != nil {
			return err
		}
		if err := moveInto(filepath.Join(stage, e.Name()), filepath.Join(dir, e.Name()), last); err != nil {
			return err
		}
	}
	if i := slices.Index(files, last); i >= 0 {
		files = append(slices.Delete(files, i, i+1), last)
	}
	for _, name := range files {
		if err := os.Rename(filepath.Join(stage, name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}
