package report

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/results"
)

// The files an audit folder (--out DIR) holds.
const (
	AuditJSON = "audit.json"
	AuditMD   = "audit.md"
	AuditHTML = "audit.html"
)

// auditHeads are what the first KiB of each file of an audit folder holds,
// so that a file notesbench did not write is never overwritten.
var auditHeads = map[string]string{AuditMD: "# notesbench audit:", AuditHTML: "<title>notesbench audit:"}

// CheckAuditFolder makes sure WriteAuditFolder can write into dir without
// creating anything yet: dir is a folder, or does not exist and its parent
// is one, and each file it would write is missing or one notesbench wrote.
func CheckAuditFolder(dir string) error {
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return atomicfile.NotFolder(dir, st)
	case os.IsNotExist(err):
		parent, perr := os.Stat(filepath.Dir(dir))
		if perr != nil || !parent.IsDir() {
			return fmt.Errorf("cannot create %s: %s is not a folder", dir, filepath.Dir(dir))
		}
		return atomicfile.ProbeFolder(filepath.Dir(dir))
	case err != nil:
		return err
	}
	if err := results.CheckWritable(filepath.Join(dir, AuditJSON)); err != nil {
		return err
	}
	for _, name := range []string{AuditMD, AuditHTML} {
		path := filepath.Join(dir, name)
		st, err := os.Stat(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := atomicfile.Regular(path, st); err != nil {
			return err
		}
		if !strings.Contains(string(atomicfile.ReadHead(path, 1024)), auditHeads[name]) {
			return fmt.Errorf("%s exists and was not written by notesbench audit; remove it or name another folder", path)
		}
	}
	return atomicfile.ProbeFolder(dir)
}

// WriteAuditFolder writes audit.json, audit.md and audit.html into dir,
// each file whole or not at all.
func WriteAuditFolder(dir string, d AuditDoc) error {
	files := []folderFile{
		{AuditJSON, func(w io.Writer) error { return WriteJSON(w, d.Audit) }},
		{AuditHTML, func(w io.Writer) error { return WriteAuditHTML(w, d) }},
		{AuditMD, func(w io.Writer) error { return WriteAudit(w, FormatMarkdown, 0, d) }},
	}
	for _, name := range slices.Sorted(maps.Keys(d.Histories)) {
		files = append(files, folderFile{name, func(w io.Writer) error {
			_, err := w.Write(d.Histories[name])
			return err
		}})
	}
	return writeFolder(dir, files)
}

// WriteClientAuditFolder writes a client audit into dir as WriteAuditFolder
// writes an audit: audit.md, audit.json and audit.html, each whole.
func WriteClientAuditFolder(dir string, a results.ClientAudit) error {
	return writeFolder(dir, []folderFile{
		{AuditJSON, func(w io.Writer) error { return WriteJSON(w, a) }},
		{AuditHTML, func(w io.Writer) error { return WriteClientAuditHTML(w, a) }},
		{AuditMD, func(w io.Writer) error { return Render(w, FormatMarkdown, ClientAuditTables(a)...) }},
	})
}

// folderFile is one file of a folder a command writes: its name, and what
// writes it.
type folderFile struct {
	name  string
	write func(w io.Writer) error
}

// writeFolder writes files into dir, each whole (atomicfile).
func writeFolder(dir string, files []folderFile) error {
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(path, 0o644, f.write); err != nil {
			return err
		}
	}
	return nil
}
