package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/notesbench/notesbench/internal/testpass"
)

// built holds the notesbench binary the tests build, once, in a folder
// TestMain removes.
var built struct {
	sync.Mutex
	dir, bin string
	err      error
}

// buildNotesbench returns a notesbench binary built once for every test that
// runs one. It is built as make build builds it, without the race detector:
// tests whose child processes do the work (a server that must commit two
// writes within a millisecond, the deploy files' shards, a command stopped
// mid-run) get the speed of a user's binary, ten times that of the
// detector's on the embedded SQLite. The detector would watch none of that
// work, so such a test is end to end (endToEnd): under the detector it
// fails here.
func buildNotesbench(t testing.TB) string {
	t.Helper()
	if testpass.Race {
		t.Fatal("a test that runs the built binary is end to end: call endToEnd(t) first")
	}
	built.Lock()
	defer built.Unlock()
	if built.bin == "" && built.err == nil {
		built.bin, built.err = build()
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// build builds notesbench into a temporary folder.
func build() (string, error) {
	dir, err := os.MkdirTemp("", "notesbench-test-bin-")
	if err != nil {
		return "", err
	}
	built.dir = dir
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "notesbench")
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
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
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// endToEnd skips t under the race detector, for make test's time: t drives
// whole commands against servers in child processes (most built without the
// detector, which then sees none of their work) or PostgreSQL, or runs the
// built binary as a deploy file, a workflow or a shell would (its steps, its
// signals), and the paths it crosses are held under the detector by the
// tests of mcpclient, serve, internal/crash and pgstore. make test-large
// runs t. Under the detector no test builds the binary.
func endToEnd(t *testing.T) {
	t.Helper()
	testpass.Large(t, "end to end against child processes")
}
