//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildNotesbench builds the notesbench binary into dir, with the race
// detector when the tests run under it (its packages are then built already).
func buildNotesbench(t *testing.T, dir string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "notesbench")
	args := []string{"build", "-o", bin}
	if raceDetector {
		args = append(args, "-race")
	}
	build := exec.Command(gobin, append(args, ".")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building notesbench: %v\n%s", err, out)
	}
	return bin
}

// Ctrl-C stops every command mid-run: exit 130 (SIGTERM: 143), "interrupted"
// on stderr, and nothing left behind — no --out file, no reproduction folder,
// no temporary database. Each command runs as a child process with its
// temporary folder in a folder of its own, gets the signal half a second into
// a run that takes many seconds, and must be gone soon after.
func TestSignalStopsEveryCommand(t *testing.T) {
	bin := buildNotesbench(t, t.TempDir())
	for _, tc := range []struct {
		name string
		args []string
		sig  syscall.Signal
		code int
		last string // the last line on stderr; "": notesbench: interrupted
	}{
		{"race", []string{"race", "--seeds", "1-2", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"race SIGTERM", []string{"race", "--seeds", "1-2", "--replications", "0", "--out", "OUT"}, syscall.SIGTERM, 143, ""},
		{"tabs", []string{"tabs", "--seeds", "1", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"fast", []string{"fast", "--clock", "virtual", "--seeds", "1-5", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"create", []string{"create", "--tabs", "1000", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"sources", []string{"sources", "--sessions", "5000", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"refs", []string{"refs", "--trials", "100000", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"outline", []string{"outline", "--replications", "10000", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"validate", []string{"validate", "create_note_tab", "-", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"bench", []string{"bench", "--writes", "100000", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"reproduce", []string{"reproduce", "--only", "race,tabs", "--out", "OUT"}, syscall.SIGINT, 130, ""},
		{"crash", []string{"crash", "--kills", "5000", "--history", "OUT"}, syscall.SIGINT, 130, ""},
		// conform waits on a server that never answers.
		{"conform", []string{"conform", "--target", "stdio:sleep 600"}, syscall.SIGINT, 130, ""},
		// serve stops gracefully on a signal, as it documents, and exits 0.
		{"serve", []string{"serve", "--memory"}, syscall.SIGINT, 0, "notesbench serve: stopped; database closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+dir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			// A pipe that stays open and empty: validate waits on it.
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() {
				stdin.Close()
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					<-done
				}
			})

			select {
			case err := <-done:
				t.Fatalf("finished before the signal (%v): make its run longer\n%s", err, stderr.String())
			case <-time.After(500 * time.Millisecond):
			}
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			var waitErr error
			select {
			case waitErr = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("still running 10 s after %v", tc.sig)
			}
			t.Logf("%s: exited %v after %v", tc.name, tc.sig, time.Since(sent).Round(time.Millisecond))

			code := 0
			var exit *exec.ExitError
			if errors.As(waitErr, &exit) {
				code = exit.ExitCode()
			}
			if code != tc.code || (waitErr != nil && exit == nil) {
				t.Errorf("after %v: %v, want exit code %d; stderr %q", tc.sig, waitErr, tc.code, stderr.String())
			}
			last := tc.last
			if last == "" {
				last = "notesbench: interrupted"
			}
			if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); lines[len(lines)-1] != last {
				t.Errorf("stderr %q, want it to end with %s", stderr.String(), last)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("left behind in its folder: %v", names)
			}
		})
	}
}
