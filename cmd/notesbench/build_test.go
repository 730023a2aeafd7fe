package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// builds holds the notesbench binaries the tests build, one per kind, in a
// folder TestMain removes.
var builds struct {
	sync.Mutex
	dir  string
	bins map[bool]string // by race detector
	errs map[bool]error
}

// buildNotesbench returns a notesbench binary built once for every test that
// runs one, with the race detector when race is true and the tests run under
// it (its packages are then built already). A binary without it is what make
// build makes: tests whose child processes do the work use it, ten times
// faster on the embedded SQLite than under the detector.
func buildNotesbench(t testing.TB, race bool) string {
	t.Helper()
	race = race && raceDetector
	builds.Lock()
	defer builds.Unlock()
	if bin, ok := builds.bins[race]; ok {
		return bin
	}
	if err, ok := builds.errs[race]; ok {
		t.Fatal(err)
	}
	if builds.bins == nil {
		builds.bins, builds.errs = map[bool]string{}, map[bool]error{}
	}
	bin, err := build(race)
	if err != nil {
		builds.errs[race] = err
		t.Fatal(err)
	}
	builds.bins[race] = bin
	return bin
}

// build builds notesbench into the builds' folder.
func build(race bool) (string, error) {
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "notesbench-test-bin-")
		if err != nil {
			return "", err
		}
		builds.dir = dir
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	name, args := "notesbench", []string{"build"}
	if race {
		name, args = "notesbench-race", append(args, "-race")
	}
	bin := filepath.Join(builds.dir, name)
	if out, err := exec.Command(gobin, append(args, "-o", bin, ".")...).CombinedOutput(); err != nil {
		return "", &buildError{err, out}
	}
	return bin, nil
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string {
	return "building notesbench: " + e.err.Error() + "\n" + string(e.out)
}

// removeBuilds removes what buildNotesbench built.
func removeBuilds() {
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
}
