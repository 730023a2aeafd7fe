package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// CheckWritable makes sure Write can write path before anything runs: its
// folder exists and takes a new file, and path is either new or, by ours, a
// file of the kind the caller would write there (what names the kind: "a
// notesbench result"), never a folder, a device, a pipe or a socket (which a
// check that reads the file would wait on for ever), nor any other file, which
// must not be clobbered.
func CheckWritable(path, what string, ours func(path string) bool) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a folder", path)
		}
		if err := Regular(path, st); err != nil {
			return err
		}
		if !ours(path) {
			return fmt.Errorf("%s exists and is not %s; remove it or name another file", path, what)
		}
	}
	return ProbeFolder(filepath.Dir(path))
}

// ProbeFolder makes sure a new file can be created in dir, by creating one
// and removing it.
func ProbeFolder(dir string) error {
	tmp, err := os.CreateTemp(dir, ".notesbench-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	name := tmp.Name()
	tmp.Close()
	return os.Remove(name)
}

// CheckFolder makes sure files can go into dir before anything runs: dir is a
// folder that takes a new file or, when it does not exist yet, its nearest
// existing parent is one (the writer creates the rest).
func CheckFolder(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a folder", d)
		case err == nil:
			return ProbeFolder(d)
		case !os.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR):
			return err
		case filepath.Dir(d) == d:
			return err
		}
	}
}

// Regular returns an error when st, the file at path, is not a regular file.
func Regular(path string, st os.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is not a regular file (%s); name a file", path, kind(st.Mode()))
}

// NotFolder is the error of a folder to write into that is something else:
// st, the file at path, is a file, a device, a named pipe or a socket.
func NotFolder(path string, st os.FileInfo) error {
	switch m := st.Mode(); {
	case m.IsRegular():
		return fmt.Errorf("%s is a file, not a folder", path)
	case m&(os.ModeNamedPipe|os.ModeSocket|os.ModeDevice) != 0:
		return fmt.Errorf("%s is %s, not a folder", path, kind(m))
	}
	return fmt.Errorf("%s is not a folder", path)
}

// kind names what a file that is not a regular file is.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// ReadHead reads the first n bytes of the file at path, fewer when it is
// shorter; nil when it cannot be read.
func ReadHead(path string, n int) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, int64(n)))
	return b
}
