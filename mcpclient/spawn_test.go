package mcpclient

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// listenOnceEnv makes the test binary a server that dies before it
// answers (listenOnce) on the address it names.
const listenOnceEnv = "MCPCLIENT_TEST_LISTEN_ONCE"

// listenOnce listens on addr and takes the connection that finds it
// listening; when the next one comes (the first request), it says so on
// stderr and exits with status 3 before it answers.
func listenOnce(addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	if c, err := ln.Accept(); err == nil {
		c.Close()
	}
	if _, err := ln.Accept(); err != nil {
		return 1
	}
	// The exit closes the request's connection.
	fmt.Fprintln(os.Stderr, "helper: giving up before answering")
	return 3
}

// A command that starts an HTTP server must name the port Dial chooses:
// one that names none would listen elsewhere, and the wait for it to listen
// on the port chosen could only run out (two minutes by default). Dial
// refuses it before it starts anything.
func TestSpawnNamesThePort(t *testing.T) {
	spec, err := Parse("http://127.0.0.1:{port}/mcp")
	if err != nil {
		t.Fatal(err)
	}
	// Cancelled, so that a Dial that started the command ends at once,
	// in another error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Dial(cctx, spec, Options{Spawn: []string{"sleep", "600"}})
	want := "target http://127.0.0.1:{port}/mcp: the command that starts the server (sleep 600) names no {port}: it must listen on the port notesbench chooses"
	if err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}

// A server Dial starts that exits before it answers is said to have exited,
// with its exit status and the last lines of its stderr, at once: whether
// it exits before it listens, or after (Dial saw it listen, and its first
// request found it gone, which a refused connection shows before the exit
// is seen). The deadline to listen is long, so that only the exit ends the
// wait.
func TestSpawnedServerExits(t *testing.T) {
	if _, err := exec.LookPath("env"); err != nil {
		t.Skip("no env(1)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Parse("http://127.0.0.1:{port}/mcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spawn []string
		want  string
	}{
		{[]string{"sh", "-c", "echo gone >&2; exit 3", "{port}"},
			"target http://127.0.0.1:{port}/mcp: starting the server (sh -c echo gone >&2; exit 3 {port}): the server exited (exit status 3): gone"},
		{[]string{"env", "GORACE=atexit_sleep_ms=0", listenOnceEnv + "=127.0.0.1:{port}", exe, "-test.run=^$"},
			"target http://127.0.0.1:{port}/mcp: no MCP handshake, at each of two starts: the server exited (exit status 3): helper: giving up before answering"},
	} {
		_, err := Dial(ctx, spec, Options{Spawn: tc.spawn, ConnectTimeout: time.Hour})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", strings.Join(tc.spawn, " "), err, tc.want)
		}
	}
}
