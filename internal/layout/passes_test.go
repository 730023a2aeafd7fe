package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// raceSwitch finds a build constraint on the race detector.
var raceSwitch = regexp.MustCompile(`(?m)^//go:build .*\brace\b`)

// Which pass runs a test is said in one place, internal/testpass: no other
// file switches on the race detector with a build constraint of its own,
// which scripts/largetests would not see, so that a test shrunk or left out
// under the detector without testpass would never run at full size.
func TestOneRaceSwitch(t *testing.T) {
	root := filepath.Join("..", "..")
	var broken []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || rel == filepath.Join("internal", "testpass")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && raceSwitch.Match(b) {
			broken = append(broken, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(broken) > 0 {
		t.Errorf("a build constraint on the race detector outside internal/testpass (use testpass.Race, Sized or Large): %s", strings.Join(broken, ", "))
	}
}

// The rule finds a constraint on the detector, alone or combined, and not a
// word that only contains "race".
func TestOneRaceSwitchCatches(t *testing.T) {
	for src, want := range map[string]bool{
		"//go:build race\n\npackage x":            true,
		"//go:build !race\n\npackage x":           true,
		"//go:build linux && !race\n\npackage x":  true,
		"//go:build linux\n\npackage x // a race": false,
		"//go:build tracer\n\npackage x":          false,
	} {
		if got := raceSwitch.MatchString(src); got != want {
			t.Errorf("%q: %v, want %v", src, got, want)
		}
	}
}
