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
