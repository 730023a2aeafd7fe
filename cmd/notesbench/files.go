package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/report"
)

// maxResultBytes bounds a JSON result notesbench reads (a baseline, or a file
// it is asked to overwrite): far above any result of the bounded parameters,
// far below what would strain a laptop's memory.
const maxResultBytes = 256 << 20

// checkWritable makes sure a file can be written at path: its folder exists
// and takes a new file, and path is either new or, by ours, a file of the kind
// notesbench would write there (what names the kind: "a notesbench result") —
// never a folder, a device, a pipe or a socket (which a check that reads the
// file would wait on for ever), nor any other file, which a run must not
// clobber.
func checkWritable(path, what string, ours func(path string) bool) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a folder", path)
		}
		if err := regular(path, st); err != nil {
			return err
		}
		if !ours(path) {
			return fmt.Errorf("%s exists and is not %s; remove it or name another file", path, what)
		}
	}
	return probeFolder(filepath.Dir(path))
}

// checkResultWritable is checkWritable for a JSON result.
func checkResultWritable(path string) error {
	return checkWritable(path, "a notesbench result", isResultFile)
}

// checkHistoryWritable is checkWritable for a history.
func checkHistoryWritable(path string) error {
	return checkWritable(path, "a notesbench history", history.IsHistoryFile)
}

// checkHTMLWritable is checkWritable for an HTML page.
func checkHTMLWritable(path string) error {
	return checkWritable(path, "an HTML page", isHTMLPage)
}

// isHTMLPage reports whether path starts as an HTML page does.
func isHTMLPage(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	const doctype = "<!doctype html>"
	b, _ := io.ReadAll(io.LimitReader(f, 512))
	return bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(b)), []byte(doctype))
}

// probeFolder makes sure a new file can be created in dir, by creating one and
// removing it.
func probeFolder(dir string) error {
	tmp, err := os.CreateTemp(dir, ".notesbench-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	name := tmp.Name()
	tmp.Close()
	return os.Remove(name)
}

// regular returns an error when st, the file at path, is not a regular file.
func regular(path string, st os.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is not a regular file (%s); name a file", path, fileKind(st.Mode()))
}

// fileKind names what a file that is not a regular file is.
func fileKind(m os.FileMode) string {
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

// readResult reads a JSON result file: a regular file of at most
// maxResultBytes.
func readResult(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder", path)
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	if st.Size() > maxResultBytes {
		return nil, fmt.Errorf("%s is %s bytes, more than a notesbench result may be (%s)", path, report.Int(st.Size()), report.Int(maxResultBytes))
	}
	return os.ReadFile(path)
}

// isResultFile reports whether path holds a JSON result notesbench wrote.
func isResultFile(path string) bool {
	b, err := readResult(path)
	if err != nil {
		return false
	}
	var head struct {
		Version *string `json:"notesbench_version"`
	}
	return json.Unmarshal(b, &head) == nil && head.Version != nil
}

// checkDBFolder makes sure the databases can go into dir before anything runs:
// dir is a folder that takes a new file or, when it does not exist yet, its
// nearest existing parent is one (the store creates the rest).
func checkDBFolder(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a folder", d)
		case err == nil:
			return probeFolder(d)
		case !os.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR):
			return err
		case filepath.Dir(d) == d:
			return err
		}
	}
}

// output is a file a flag names for notesbench to write.
type output struct{ flag, path string }

// distinctOutputs refuses two flags that name the same file to write: the
// second would overwrite the first. Empty paths name nothing.
func distinctOutputs(outs ...output) error {
	type seen struct {
		output
		abs string
		st  os.FileInfo
	}
	var prev []seen
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return usageErr(o.flag, err)
		}
		st, _ := os.Stat(abs)
		for _, p := range prev {
			if p.abs == abs || (st != nil && p.st != nil && os.SameFile(st, p.st)) {
				return usagef(o.flag, "names the same file as %s (%s): each output needs a file of its own", p.flag, o.path)
			}
		}
		prev = append(prev, seen{o, abs, st})
	}
	return nil
}
