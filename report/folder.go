package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/results"
)

// The files a reproduction folder holds.
const (
	ReproducedJSON = "reproduced.json"
	ReproducedMD   = "REPRODUCED.md"
	ReproducedPlot = "plots"
)

// CheckReproductionFolder makes sure WriteReproductionFolder can write into
// dir without creating anything yet: dir is a writable folder, or does not
// exist and its parent is one. An existing folder must hold no Go source (a
// package is no place for a report of some hundred files), and every file
// written there must be missing or one notesbench wrote.
func CheckReproductionFolder(dir string) error {
	dir = filepath.Clean(dir) // "out/" is the folder out, whose parent is "."
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return atomicfile.NotFolder(dir, st)
	case err == nil:
		return checkExistingFolder(dir)
	case !os.IsNotExist(err):
		return err
	}
	parent, err := os.Stat(filepath.Dir(dir))
	if err != nil || !parent.IsDir() {
		return fmt.Errorf("cannot create %s: %s is not a folder", dir, filepath.Dir(dir))
	}
	return atomicfile.ProbeFolder(filepath.Dir(dir))
}

// checkExistingFolder is CheckReproductionFolder for a folder that exists.
func checkExistingFolder(dir string) error {
	jsonPath, mdPath := filepath.Join(dir, ReproducedJSON), filepath.Join(dir, ReproducedMD)
	if err := results.CheckWritable(jsonPath); err != nil {
		return err
	}
	if st, err := os.Stat(mdPath); err == nil {
		if err := atomicfile.Regular(mdPath, st); err != nil {
			return err
		}
		head := atomicfile.ReadHead(mdPath, len(ReproducedTitle)+1)
		if strings.TrimRight(string(head), "\r\n") != ReproducedTitle {
			return fmt.Errorf("%s exists and was not written by notesbench reproduce; remove it or name another folder", mdPath)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && (strings.HasSuffix(name, ".go") || name == "go.mod") {
			return fmt.Errorf("%s holds Go source (%s): name a folder of its own for the reproduction", dir, name)
		}
	}
	plots := filepath.Join(dir, ReproducedPlot)
	if st, err := os.Stat(plots); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is not a folder", plots)
		}
		if files, _ := os.ReadDir(plots); len(files) > 0 && !results.IsResultFile(jsonPath) {
			return fmt.Errorf("%s holds files, and %s no reproduction of notesbench's; name another folder", plots, dir)
		}
	}
	return nil
}

// WriteReproductionFolder writes reproduced.json, the plots (SVG and PNG)
// and REPRODUCED.md into dir, each file whole or not at all.
func WriteReproductionFolder(dir string, all results.Reproduction, tables []Table, plots []Plot) error {
	if err := os.MkdirAll(filepath.Join(dir, ReproducedPlot), 0o755); err != nil {
		return err
	}
	err := atomicfile.Write(filepath.Join(dir, ReproducedJSON), 0o644, func(w io.Writer) error { return WriteJSON(w, all) })
	if err != nil {
		return err
	}
	for _, p := range plots {
		for _, format := range PlotFormats {
			file := filepath.Join(dir, ReproducedPlot, p.Name+"."+format)
			if err := atomicfile.Write(file, 0o644, func(w io.Writer) error { return p.Draw(w, format) }); err != nil {
				return fmt.Errorf("plot %s: %w", file, err)
			}
		}
	}
	return atomicfile.Write(filepath.Join(dir, ReproducedMD), 0o644, func(w io.Writer) error {
		return WriteReproducedMD(w, all, tables, plots, ReproducedPlot)
	})
}
