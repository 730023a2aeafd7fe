//go:build unix

package mcpclient

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A spawned server's group is ended when its leader exits, while the
// leader, not yet reaped, still holds the group's ID: what it left behind is
// gone by the time the exit is known, and no signal can reach a group whose
// ID was freed for another process.
func TestGroupEndsWithItsLeader(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p, err := startProcess(context.Background(), []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; exit 0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	<-p.exited
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// The child was killed before the leader was reaped; init may take a
	// moment to reap it in turn, and a zombie is dead.
	deadline := time.Now().Add(5 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's child %d outlived the server's exit", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.mu.Lock()
	reaped := p.reaped
	p.mu.Unlock()
	if !reaped {
		t.Fatal("exited closed before the leader was reaped")
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
