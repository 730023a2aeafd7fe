package mcpclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// link is one connection to the server, the transport of one MCP session, and
// what ends it.
type link struct {
	transport mcp.Transport
	// end releases what the link holds (a process, idle HTTP connections)
	// after its session closed; abort does it at once, after a failure.
	end, abort func()
	// died says how the server died, or nil while it is not known to have.
	died func() error
}

// dialer opens a link.
type dialer func(ctx context.Context) (*link, error)

// Dialer opens one connection to a server for New: the transport of one MCP
// session. It is for servers reached by other means than a target string,
// such as the SDK's in-memory transports.
type Dialer func(ctx context.Context) (mcp.Transport, error)

func (d Dialer) dialer() dialer {
	return func(ctx context.Context) (*link, error) {
		t, err := d(ctx)
		if err != nil {
			return nil, err
		}
		return &link{transport: t, end: func() {}, abort: func() {}, died: func() error { return nil }}, nil
	}
}

// httpDialer opens a streamable HTTP session of its own, on an HTTP client of
// its own: no two sessions share a connection.
func httpDialer(url string) dialer {
	return func(context.Context) (*link, error) {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		return &link{
			transport: &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}, DisableStandaloneSSE: true},
			end:       tr.CloseIdleConnections,
			abort:     tr.CloseIdleConnections,
			died:      func() error { return nil },
		}, nil
	}
}

// stdioDialer spawns the command for every link: over stdio one process
// serves one MCP session.
func stdioDialer(argv []string, stderr io.Writer) dialer {
	return func(ctx context.Context) (*link, error) {
		p, err := startProcess(ctx, argv, stderr)
		if err != nil {
			return nil, err
		}
		return &link{transport: &mcp.IOTransport{Reader: p.stdout, Writer: p.stdin}, end: p.stop, abort: p.kill, died: p.died}, nil
	}
}

// process is one spawned server.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our ends of its stdin and stdout
	stdout *os.File
	tail   *tail
	exited chan struct{}
	err    error // Wait's error, once exited is closed
	unbind func() bool
}

// How long a server has to exit after its stdin closed, and after SIGTERM.
const (
	exitWait = 3 * time.Second
	termWait = 2 * time.Second
)

// startProcess spawns argv in a process group of its own, with pipes of ours
// on stdin and stdout; its stderr is kept (the last lines, for errors) and
// copied to stderr when that is not nil. Cancelling ctx kills the group.
func startProcess(ctx context.Context, argv []string, stderr io.Writer) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	ownGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, tail: &tail{tee: stderr}, exited: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.tail
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	p.unbind = context.AfterFunc(ctx, func() { signalGroup(cmd, syscall.SIGKILL) })
	return p, nil
}

// stop ends the server as the MCP specification asks: its stdin closes, then
// SIGTERM, then SIGKILL; and then whatever is left of its process group.
func (p *process) stop() {
	p.unbind()
	p.stdin.Close()
	if !p.wait(exitWait) {
		signalGroup(p.cmd, syscall.SIGTERM)
		if !p.wait(termWait) {
			signalGroup(p.cmd, syscall.SIGKILL)
			<-p.exited
		}
	}
	signalGroup(p.cmd, syscall.SIGKILL)
	p.stdout.Close()
}

// kill ends the server's process group at once: for a server that failed.
func (p *process) kill() {
	p.unbind()
	signalGroup(p.cmd, syscall.SIGKILL)
	<-p.exited
	p.stdin.Close()
	p.stdout.Close()
}

func (p *process) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// died says how the server exited, with the last line of its stderr, or nil
// while it runs. A connection that broke is often seen before the exit is, so
// it waits a moment for it.
func (p *process) died() error {
	if !p.wait(200 * time.Millisecond) {
		return nil
	}
	status := "exit status 0"
	if p.err != nil {
		status = p.err.Error()
	}
	if last := p.tail.lastLine(); last != "" {
		return fmt.Errorf("the server exited (%s): %s", status, last)
	}
	return fmt.Errorf("the server exited (%s)", status)
}

// tail keeps the end of a process's stderr.
type tail struct {
	tee io.Writer
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4096

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = t.buf[len(t.buf)-tailSize:]
	}
	t.mu.Unlock()
	if t.tee != nil {
		t.tee.Write(p)
	}
	return len(p), nil
}

func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	return strings.TrimSpace(string(lines[len(lines)-1]))
}
