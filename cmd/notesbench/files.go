package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/atomicfile"
)

// checkHistoryWritable is atomicfile.CheckWritable for a history.
func checkHistoryWritable(path string) error {
	return atomicfile.CheckWritable(path, "a notesbench history", history.IsHistoryFile)
}

// checkHTMLWritable is atomicfile.CheckWritable for an HTML page: one that
// starts as an HTML page does.
func checkHTMLWritable(path string) error {
	return atomicfile.CheckWritable(path, "an HTML page", func(path string) bool {
		head := bytes.TrimSpace(atomicfile.ReadHead(path, 512))
		return bytes.HasPrefix(bytes.ToLower(head), []byte("<!doctype html>"))
	})
}

// output is a file a flag names for notesbench to write.
type output struct{ flag, path string }

// input is a file a command reads: one of its arguments (flag empty) or the
// file a flag names, such as --baseline's.
type input struct{ flag, path string }

// fileID is what tells two paths of one file apart from two files: the
// absolute path, and the file itself when it exists (a link, or another
// spelling of its path, names the same one).
type fileID struct {
	abs string
	st  os.FileInfo
}

// identify returns the fileID of path.
func identify(path string) (fileID, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fileID{}, err
	}
	st, _ := os.Stat(abs)
	return fileID{abs, st}, nil
}

// same reports whether a and b are one file.
func (a fileID) same(b fileID) bool {
	return a.abs == b.abs || (a.st != nil && b.st != nil && os.SameFile(a.st, b.st))
}

// distinctOutputs refuses two flags that name the same file to write: the
// second would overwrite the first. Empty paths name nothing.
func distinctOutputs(outs ...output) error {
	type seen struct {
		output
		id fileID
	}
	var prev []seen
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		id, err := identify(o.path)
		if err != nil {
			return usageErr(o.flag, err)
		}
		for _, p := range prev {
			if p.id.same(id) {
				return usagef(o.flag, "names the same file as %s (%s): each output needs a file of its own", p.flag, o.path)
			}
		}
		prev = append(prev, seen{o, id})
	}
	return nil
}

// notInputs refuses an output that is one of the files the command reads,
// however its path is spelt, a link to it included: writing it would
// overwrite what the command read, with exit 0. Call it before anything is
// written. Empty paths, and "-" (standard input), name nothing.
func notInputs(ins []input, outs ...output) error {
	type seen struct {
		input
		id fileID
	}
	var read []seen
	for _, in := range ins {
		if in.path == "" || in.path == "-" {
			continue
		}
		id, err := identify(in.path)
		if err != nil {
			continue // reading it says what is wrong
		}
		read = append(read, seen{in, id})
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		id, err := identify(o.path)
		if err != nil {
			return usageErr(o.flag, err)
		}
		for _, in := range read {
			if in.id.same(id) {
				what := in.path
				if in.flag != "" {
					what = in.flag + " " + in.path
				}
				return usagef(o.flag, "%s is an input (%s): writing it would overwrite what is read; name another file", o.path, what)
			}
		}
	}
	return nil
}

// distinctFiles refuses a file given twice among files, however its path is
// spelt, a link to it included; what says what reading it twice would do.
// "-" (standard input) is left to the caller.
func distinctFiles(files []string, what string) error {
	type seen struct {
		path string
		id   fileID
	}
	var prev []seen
	for _, f := range files {
		if f == "-" {
			continue
		}
		id, err := identify(f)
		if err != nil {
			continue // reading it says what is wrong
		}
		for _, p := range prev {
			if p.id.same(id) {
				return usagef(f, "the same file as %s: given twice, %s", p.path, what)
			}
		}
		prev = append(prev, seen{f, id})
	}
	return nil
}

// arguments returns files as the inputs a command's arguments name.
func arguments(files []string) []input {
	ins := make([]input, len(files))
	for i, f := range files {
		ins[i] = input{path: f}
	}
	return ins
}
