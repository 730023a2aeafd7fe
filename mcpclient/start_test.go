package mcpclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A start that runs out of its time is made once more before it counts: a
// server whose first start never answers the handshake is reached on the
// second; one that never answers is an error that says both starts ran out
// and names the flag.
func TestSlowStartIsMadeOnceMore(t *testing.T) {
	t.Parallel() // waits out start timeouts, most of its time
	dir := t.TempDir()
	helper := helperTarget(t, filepath.Join(dir, "notes.db"))
	// The first start hangs without a word (sleep reads nothing), every
	// later one is the helper server.
	marker := filepath.Join(dir, "started")
	firstHangs := "if [ ! -e " + marker + " ]; then touch " + marker + "; exec sleep 600; fi; exec " + quoteAll(helper.Command)
	// The first start must run out of its time; the second, the helper
	// built with the race detector, may need more on a loaded machine than
	// the first is given.
	tg := dialT(t, stdioSpec(t, "sh", "-c", firstHangs), Options{ConnectTimeout: time.Second, againTimeout: time.Minute})
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the first start was not made: %v", err)
	}
	if tg.Describe() == "" {
		t.Error("no description of the target reached on its second start")
	}

	// A server that never answers hangs at every start, however short the
	// time it is given.
	_, err := Dial(ctx, stdioSpec(t, "sh", "-c", "exec sleep 600"), Options{ConnectTimeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no MCP handshake within 200ms, at each of two starts (--start-timeout)") {
		t.Errorf("a server that never answers: %v", err)
	}
}

// A start whose server exits before the handshake (a store another start
// holds locked at that moment) is made once more too; one that exits at
// every start says so.
func TestExitedStartIsMadeOnceMore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	helper := helperTarget(t, filepath.Join(dir, "notes.db"))
	marker := filepath.Join(dir, "started")
	firstExits := "if [ ! -e " + marker + " ]; then touch " + marker + "; echo database is locked >&2; exit 1; fi; exec " + quoteAll(helper.Command)
	tg := dialT(t, stdioSpec(t, "sh", "-c", firstExits), Options{})
	if tg.Describe() == "" {
		t.Error("no description of the target reached on its second start")
	}
	_, err := Dial(ctx, stdioSpec(t, "sh", "-c", "echo locked >&2; exit 3"), Options{})
	if err == nil || !strings.Contains(err.Error(), "no MCP handshake, at each of two starts: the server exited (exit status 3): locked") {
		t.Errorf("a server that exits at every start: %v", err)
	}
}
