//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C stops every command mid-run: exit 130, "interrupted" on stderr
// (SIGTERM: 143, "terminated"), and nothing left behind — no --out file, no reproduction folder,
// no temporary database. Each command runs as a child process with its
// temporary folder in a folder of its own, gets the signal once it handles
// signals and, for a command that keeps its databases in a temporary folder,
// once that folder exists, in a run that takes many seconds, and must be gone
// soon after.
func TestSignalStopsEveryCommand(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildNotesbench(t)
	for _, tc := range []struct {
		name string
		args []string
		sig  syscall.Signal
		code int
		last string // the last line on stderr; "": notesbench: interrupted (terminated for SIGTERM)
		// temp says the command keeps its databases in a temporary folder:
		// the signal waits until the folder exists.
		temp bool
		// started, when set, is what stderr says once the command runs: the
		// signal waits for it.
		started string
	}{
		{"race", []string{"race", "--seeds", "1-2", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, "", true, ""},
		{"race SIGTERM", []string{"race", "--seeds", "1-2", "--replications", "0", "--out", "OUT"}, syscall.SIGTERM, 143, "", true, ""},
		{"tabs", []string{"tabs", "--seeds", "1", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, "", true, ""},
		{"fast", []string{"fast", "--clock", "virtual", "--seeds", "1-5", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, "", true, ""},
		{"create", []string{"create", "--tabs", "1000", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, "", false, ""},
		{"sources", []string{"sources", "--sessions", "5000", "--replications", "0", "--out", "OUT"}, syscall.SIGINT, 130, "", false, ""},
		{"refs", []string{"refs", "--trials", "100000", "--out", "OUT"}, syscall.SIGINT, 130, "", false, ""},
		{"outline", []string{"outline", "--replications", "10000", "--out", "OUT"}, syscall.SIGINT, 130, "", false, ""},
		{"validate", []string{"validate", "create_note_tab", "-", "--out", "OUT"}, syscall.SIGINT, 130, "", false, ""},
		{"bench", []string{"bench", "--writes", "100000", "--out", "OUT"}, syscall.SIGINT, 130, "", true, ""},
		{"reproduce", []string{"reproduce", "--only", "race,tabs", "--out", "OUT"}, syscall.SIGINT, 130, "", true, ""},
		{"crash", []string{"crash", "--kills", "5000", "--history", "OUT"}, syscall.SIGINT, 130, "", true, ""},
		// conform waits on a server that never answers.
		{"conform", []string{"conform", "--target", "stdio:sleep 600"}, syscall.SIGINT, 130, "", false, ""},
		// serve stops gracefully on a signal, as it documents, and exits 0.
		{"serve", []string{"serve", "--memory"}, syscall.SIGINT, 0, "notesbench serve: stopped; database closed", false, "notesbench serve: MCP over stdio"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			// Started with SIGINT ignored, as a shell starts a command in the
			// background: Go then leaves SIGINT alone until notesbench asks
			// for it, so that /proc shows when it handles signals.
			cmd := exec.Command("sh", append([]string{"-c", `trap '' INT; exec "$0" "$@"`, bin}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+dir)
			var stdout bytes.Buffer
			var stderr lockedBuffer // read while the command writes it
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

			running := func() bool {
				if tc.started != "" && !strings.Contains(stderr.String(), tc.started) {
					return false
				}
				if !tc.temp {
					return true
				}
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), "notesbench-") {
						return true
					}
				}
				return false
			}
			if err := waitRunning(cmd.Process.Pid, bin, running, done); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
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
			switch {
			case last != "":
			case tc.sig == syscall.SIGTERM:
				last = "notesbench: terminated"
			default:
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

// waitRunning waits until the process pid runs bin and handles SIGINT, and
// running says it is under way; it fails when the process ends first or after
// 30 s. Linux shows the signals a process catches in /proc/PID/status
// (SigCgt); elsewhere it waits half a second instead of the first two.
func waitRunning(pid int, bin string, running func() bool, done <-chan error) error {
	status := fmt.Sprintf("/proc/%d/status", pid)
	_, err := os.Stat(status)
	procfs := err == nil
	ready := func() bool {
		if !procfs {
			return running()
		}
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil || exe != bin {
			return false // still the shell
		}
		b, err := os.ReadFile(status)
		return err == nil && catches(string(b), syscall.SIGINT) && running()
	}
	if !procfs {
		select {
		case err := <-done:
			return fmt.Errorf("finished before the signal (%v): make its run longer", err)
		case <-time.After(500 * time.Millisecond):
		}
	}
	deadline := time.After(30 * time.Second)
	for !ready() {
		select {
		case err := <-done:
			return fmt.Errorf("finished before the signal (%v): make its run longer", err)
		case <-deadline:
			return errors.New("not under way with SIGINT handled 30 s after it started")
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// catches reports whether a /proc/PID/status text lists sig among the
// signals the process catches.
func catches(status string, sig syscall.Signal) bool {
	for _, line := range strings.Split(status, "\n") {
		if hex, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}

// lockedBuffer is a bytes.Buffer safe to read while a command writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Ctrl-C mid-audit writes what was measured, marked unfinished: the --out
// folder (markdown, JSON, HTML) with the parts not judged said so, exit 3
// when nothing was judged wrong, and no temporary folder left.
func TestSignalAuditWritesWhatItMeasured(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	bin := buildNotesbench(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command("sh", "-c", `trap '' INT; exec "$0" "$@"`, bin, "audit", "--budget", "smoke", "--out", out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	})
	running := func() bool { // the race's databases are in the scratch folder
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "notesbench-") {
				return true
			}
		}
		return false
	}
	if err := waitRunning(cmd.Process.Pid, bin, running, done); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	select {
	case waitErr = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30 s after SIGINT")
	}
	var exit *exec.ExitError
	if !errors.As(waitErr, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("after SIGINT: %v, want exit 3; stderr %q", waitErr, stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "audit.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "incomplete") || !strings.Contains(string(md), "not judged: the audit was interrupted") {
		t.Errorf("audit.md says nothing of the interruption:\n%s", md)
	}
	for _, f := range []string{"audit.json", "audit.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "out" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
