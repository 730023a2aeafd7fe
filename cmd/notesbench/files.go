package main

import (
	"bytes"

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
