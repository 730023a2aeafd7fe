package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/results"
)

// A plot that fails to draw fails the reproduction's folder, naming the
// plot, and written whole or not at all (as reproduce --out writes it) it
// leaves nothing behind; with every plot drawn, the folder holds the plots,
// the JSON and the report.
func TestReproductionFolderFailsOnAPlot(t *testing.T) {
	rep := results.Reproduction{Command: "notesbench reproduce --quick", Version: "test", Replications: 2}
	ok := []Plot{{Name: "race-none-lost", Title: "race · none · lost", Draw: func(w io.Writer, _ string) error {
		_, err := io.WriteString(w, "<svg/>")
		return err
	}}}
	full := append(ok[:1:1], Plot{Name: "race-note-lost", Title: "race · note · lost", Draw: func(io.Writer, string) error {
		return errors.New("no space left on device")
	}})
	parent := t.TempDir()
	out := filepath.Join(parent, "reproduction")
	write := func(plots []Plot) error {
		return atomicfile.WriteFolder(out, ReproducedMD, func(dir string) error { return WriteReproductionFolder(dir, rep, nil, plots) })
	}
	err := write(full)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "race-note-lost") {
		t.Fatalf("err %v, want the plot's failure, naming it", err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Fatalf("a failed reproduction left %v", left)
	}
	if err := write(ok); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ReproducedMD, ReproducedJSON, filepath.Join(ReproducedPlot, "race-none-lost.svg")} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the reproduction wrote no %s: %v", name, err)
		}
	}
}
