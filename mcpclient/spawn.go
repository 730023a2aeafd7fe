package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/notesbench/notesbench/history"
)

// PortPlaceholder is what Options.Spawn and an HTTP target name the port
// by: the Target replaces it with a free loopback port.
const PortPlaceholder = "{port}"

// spawned is the HTTP server a Target started (Options.Spawn): the command
// it runs, on the port it chose, and the server's lives: a kill ends one
// and starts the next with the same command, on the same port.
type spawned struct {
	argv   []string
	addr   string // the host:port it listens on
	stderr io.Writer
	ctx    context.Context // the Target's: ending it kills the server

	mu    sync.Mutex
	p     *process
	epoch int64         // the lives started
	up    chan struct{} // closed once the life of epoch listens, or failed
	err   error         // why the last start failed
}

// restartWait bounds how long a server started again has to listen.
const restartWait = 30 * time.Second

// spawnServer starts the command of opts.Spawn with the placeholder
// replaced by a free loopback port, as in spec's URL, and waits until it
// listens there. It returns the server and the spec with the port.
func spawnServer(ctx context.Context, spec TargetSpec, opts Options) (*spawned, TargetSpec, error) {
	if spec.Stdio() {
		return nil, spec, fmt.Errorf("target %s: a stdio target is spawned already: give the command as the target, not to spawn", spec.Raw)
	}
	if !strings.Contains(spec.URL, PortPlaceholder) {
		return nil, spec, fmt.Errorf("target %s names no %s: the URL of a server notesbench starts takes the port it chooses (http://127.0.0.1:%s/mcp)", spec.Raw, PortPlaceholder, PortPlaceholder)
	}
	if !slices.ContainsFunc(opts.Spawn, func(w string) bool { return strings.Contains(w, PortPlaceholder) }) {
		// It would listen elsewhere, and the wait for it to listen on the
		// port chosen would only run out.
		return nil, spec, fmt.Errorf("target %s: the command that starts the server (%s) names no %s: it must listen on the port notesbench chooses", spec.Raw, strings.Join(opts.Spawn, " "), PortPlaceholder)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, spec, err
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	raw := strings.ReplaceAll(spec.Raw, PortPlaceholder, port)
	withPort, err := Parse(raw)
	if err != nil {
		return nil, spec, err
	}
	withPort.Raw = spec.Raw // errors name the target as the user wrote it
	argv := make([]string, len(opts.Spawn))
	for i, a := range opts.Spawn {
		argv[i] = strings.ReplaceAll(a, PortPlaceholder, port)
	}
	host := hostOf(withPort.URL)
	s := &spawned{argv: argv, addr: net.JoinHostPort(host, port), stderr: opts.Stderr, ctx: ctx}
	timeout := opts.ConnectTimeout
	if timeout <= 0 {
		timeout = firstStdioHandshake // npx -y installs the server on its first run
	}
	if err := s.start(timeout); err != nil {
		s.stop()
		return nil, spec, fmt.Errorf("target %s: starting the server (%s): %w", spec.Raw, strings.Join(opts.Spawn, " "), err)
	}
	return s, withPort, nil
}

// hostOf is the host of an http URL, 127.0.0.1 when it names none.
func hostOf(u string) string {
	rest := u[strings.Index(u, "//")+2:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if h, _, err := net.SplitHostPort(rest); err == nil {
		rest = h
	}
	if rest == "" || rest == "localhost" {
		return "127.0.0.1"
	}
	return strings.Trim(rest, "[]")
}

// start starts a life of the server and waits, at most wait, until it
// listens; the server's output goes where its stderr goes.
func (s *spawned) start(wait time.Duration) error {
	up := make(chan struct{})
	s.mu.Lock()
	s.epoch++
	s.up = up
	s.mu.Unlock()
	p, err := startProcess(s.ctx, s.argv, s.stderr)
	if err == nil {
		go io.Copy(p.tail, p.stdout) // its stdout is no MCP stream: keep it as its stderr
		err = listening(s.ctx, s.addr, p, wait)
		if err != nil {
			p.kill()
		}
	}
	s.mu.Lock()
	if err == nil {
		s.p = p
	}
	s.err = err
	s.mu.Unlock()
	close(up)
	return err
}

// listening waits until addr takes a connection, the process exits, or wait
// passes.
func listening(ctx context.Context, addr string, p *process, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if p.hasExited() {
			return p.died()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("it did not listen on %s within %v", addr, wait)
		}
		if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// await waits until the server listens and returns its life and process.
func (s *spawned) await(ctx context.Context) (int64, error) {
	s.mu.Lock()
	up := s.up
	s.mu.Unlock()
	select {
	case <-up:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, fmt.Errorf("the server did not start again: %w", s.err)
	}
	return s.epoch, nil
}

// life returns the server's current life.
func (s *spawned) life() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch
}

// died says how the server's life epoch ended, or nil while it runs. For
// the life that is the current one it waits a moment for the exit, as
// process.died does: a server that exits before it answers breaks the
// connection before its exit is seen, and the error must say it exited, with
// its status and its last lines, not that the connection was refused. A
// life a kill ended is told at once, as the fault left it.
func (s *spawned) died(epoch int64) error {
	s.mu.Lock()
	p, current := s.p, s.epoch == epoch
	s.mu.Unlock()
	if p == nil || (!current && !p.hasExited()) {
		return nil
	}
	return p.died()
}

// kill SIGKILLs the server's process group and starts it again with the
// same command, on the same port; every run with faults of t hears of it.
func (s *spawned) kill(ctx context.Context, t *Target) error {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p == nil {
		return errors.New("the server is not running")
	}
	end := t.beginAll(history.FaultKill, p.cmd.Process.Pid)
	p.kill()
	err := s.start(restartWait)
	detail := "SIGKILL of the server's process group; started again with the same command"
	if err != nil {
		detail += ", which failed: " + err.Error()
	} else {
		s.mu.Lock()
		detail += fmt.Sprintf(" (pid %d)", s.p.cmd.Process.Pid)
		s.mu.Unlock()
	}
	end(detail)
	return err
}

// pause stops the server for d, or until stop closes; every run with faults
// of t hears of it.
func (s *spawned) pause(d time.Duration, stop <-chan struct{}, t *Target) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p == nil {
		return
	}
	end := t.beginAll(history.FaultPause, p.cmd.Process.Pid)
	p.signal(syscall.SIGSTOP)
	timer := time.NewTimer(d)
	select {
	case <-timer.C:
	case <-stop:
		timer.Stop()
	}
	p.signal(syscall.SIGCONT)
	end("SIGSTOP then SIGCONT of the server's process group")
}

// stop ends the server as stdio servers are ended: its stdin closes, then
// SIGTERM, then SIGKILL.
func (s *spawned) stop() {
	s.mu.Lock()
	p := s.p
	s.p = nil
	s.mu.Unlock()
	if p != nil {
		p.signal(syscall.SIGCONT) // a paused server cannot stop
		p.stop()
	}
}
