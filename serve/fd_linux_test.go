package serve

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// setNoFile lowers the soft limit of open files to n.
func setNoFile(n uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	lim.Cur = n
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
}

// A server whose process may open 64 files at most: 100 clients that each
// make a call and vanish without ending their session leave it serving, and
// running out of descriptors for connections is one line on stderr, not one
// per retry, after which it serves again.
func TestOutOfFileDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperDBEnv+"="+filepath.Join(t.TempDir(), "notes.db"), helperFDEnv+"=64",
		helperConnsEnv+"=4", "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Error("the server did not stop within 30s of its stdin closing")
		}
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	url = strings.TrimSpace(url)

	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	httpClient := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer httpClient.CloseIdleConnections()
	// The client sessions stay open on the client's side too, until the
	// checks are done: the server must not count on their ending.
	var open []*mcp.ClientSession
	defer func() {
		for _, cs := range open {
			cs.Close()
		}
	}()
	listTabs := func() error {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient, DisableStandaloneSSE: true}, nil)
		if err != nil {
			return err
		}
		open = append(open, cs)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_note_tabs", Arguments: map[string]any{"note_id": "note-1"}})
		if err == nil && res.IsError {
			err = &os.PathError{Op: "list_note_tabs", Err: syscall.EINVAL}
		}
		return err
	}
	for i := range 100 {
		// Each session is left open: its client vanished.
		if err := listTabs(); err != nil {
			t.Fatalf("session %d: %v\n%s", i+1, err, stderr)
		}
	}

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "too many open files") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never ran out of descriptors with %d connections open\n%s", len(held), stderr)
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		if len(held)%10 == 0 {
			time.Sleep(20 * time.Millisecond) // let the server accept what waits
		}
	}
	// While they stay open the server's accepts keep failing: give it the
	// time of several retries, which the old server logged one by one.
	time.Sleep(300 * time.Millisecond)
	for _, c := range held {
		c.Close()
	}
	held = nil
	deadline = time.Now().Add(20 * time.Second)
	for {
		err := listTabs()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not serve again once connections closed: %v\n%s", err, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if strings.Contains(l, "too many open files") || strings.Contains(l, "file descriptors") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d lines about descriptors, want 1:\n%s", len(lines), stderr)
	}
}
