package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
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
	// stray says what the server wrote where MCP messages go that is none,
	// "" when nothing such is known.
	stray func() string

	// What the fault layer knows of the link (faults.go): the process it
	// spawned (nil over HTTP), its place on the wire (nil without faults),
	// and the life of the spawned HTTP server it reaches (0: none).
	proc  *process
	wire  *wire
	epoch int64
	// gone is set once the link's MCP session has closed.
	gone atomic.Bool
}

// dialer opens a link; w, when not nil, is where the faults of the link's
// run are made on its wire.
type dialer func(ctx context.Context, w *wire) (*link, error)

// Dialer opens one connection to a server for New: the transport of one MCP
// session. It is for servers reached by other means than a target string,
// such as the SDK's in-memory transports.
type Dialer func(ctx context.Context) (mcp.Transport, error)

func (d Dialer) dialer() dialer {
	return func(ctx context.Context, _ *wire) (*link, error) {
		t, err := d(ctx)
		if err != nil {
			return nil, err
		}
		return &link{transport: t, end: func() {}, abort: func() {}, died: func() error { return nil }, stray: func() string { return "" }}, nil
	}
}

// httpDialer opens a streamable HTTP session of its own, on an HTTP client of
// its own: no two sessions share a connection. With a spawned server (srv
// not nil) it first waits until the server listens; with a proxy (px not
// nil) the requests go through it, named by the link's wire.
func httpDialer(url string, srv *spawned, px *proxy) dialer {
	return func(ctx context.Context, w *wire) (*link, error) {
		l := &link{died: func() error { return nil }, stray: func() string { return "" }, wire: w}
		if srv != nil {
			epoch, err := srv.await(ctx)
			if err != nil {
				return nil, err
			}
			l.epoch, l.died = epoch, func() error { return srv.died(epoch) }
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		var rt http.RoundTripper = tr
		endpoint := url
		if px != nil && w != nil {
			endpoint, rt = px.route(url, tr, w)
		}
		l.transport = &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}
		l.end, l.abort = tr.CloseIdleConnections, tr.CloseIdleConnections
		return l, nil
	}
}

// stdioDialer spawns the command for every link: over stdio one process
// serves one MCP session.
func stdioDialer(argv []string, stderr io.Writer) dialer {
	return func(ctx context.Context, w *wire) (*link, error) {
		p, err := startProcess(ctx, argv, stderr)
		if err != nil {
			return nil, err
		}
		l := &link{transport: &mcp.IOTransport{Reader: p.head.reader(p.stdout), Writer: p.stdin},
			end: p.stop, abort: p.kill, died: p.died, stray: p.head.stray, proc: p, wire: w}
		if w != nil {
			// The faults' filters sit on the pipes, after the server wrote
			// and before it reads.
			w.pid, w.onCut = p.cmd.Process.Pid, func() { w.run.t.bg.Go(p.stop) }
			l.transport = &mcp.IOTransport{Reader: readCloser{w.reader(p.head.reader(p.stdout)), p.stdout}, Writer: writeCloser{w.writer(p.stdin), p.stdin}}
		}
		return l, nil
	}
}

// readCloser and writeCloser put a filter of the wire before a pipe, which
// they close.
type (
	readCloser struct {
		io.Reader
		c io.Closer
	}
	writeCloser struct {
		io.Writer
		c io.Closer
	}
)

func (r readCloser) Close() error  { return r.c.Close() }
func (w writeCloser) Close() error { return w.c.Close() }

// process is one spawned server.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our ends of its stdin and stdout
	stdout *os.File
	tail   *tail
	// head keeps the first bytes the server wrote on stdout, to name a
	// server that writes something else than MCP messages there.
	head   *head
	exited chan struct{}
	err    error // Wait's error, once exited is closed
	unbind func() bool

	// mu guards reaped: once the leader is reaped its process ID, the
	// group's, may be another's, and no signal may go to the group.
	mu     sync.Mutex
	reaped bool
	// stopped makes stop and kill end the process once.
	stopped sync.Once
}

// How long a server has to exit after its stdin closed, and after SIGTERM.
const (
	exitWait = 3 * time.Second
	termWait = 2 * time.Second
)

// startProcess spawns argv in a process group of its own, with pipes of ours
// on stdin and stdout; its stderr is kept (the last lines, for errors) and
// copied to stderr when that is not nil. Cancelling ctx stops the server
// (stop).
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
	p := &process{cmd: cmd, stdin: inW, stdout: outR, tail: &tail{tee: stderr}, head: &head{}, exited: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.tail
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		if errors.Is(err, exec.ErrNotFound) {
			return nil, notFound(argv[0])
		}
		return nil, err
	}
	go func() {
		// The leader's exit ends its group: whatever it left running is
		// killed while the leader, a zombie, still holds the group's ID,
		// and only then is it reaped.
		awaitExit(cmd)
		p.mu.Lock()
		signalGroup(cmd, syscall.SIGKILL)
		p.err = cmd.Wait()
		p.reaped = true
		p.mu.Unlock()
		close(p.exited)
	}()
	// A ctx that ends (a part that ran out of its time, a signal) stops the
	// server as stop does, not with SIGKILL: a server killed mid-write may
	// never start again on its store (a stale lock), and the parts after
	// this one need it.
	p.unbind = context.AfterFunc(ctx, p.stop)
	return p, nil
}

// notFound is the error of a command that is not on $PATH: which name was
// looked for, and what to give instead.
func notFound(name string) error {
	if !strings.ContainsRune(name, '/') && name == "notesbench" {
		return fmt.Errorf("%s: not found on $PATH: after go build -o notesbench, give ./notesbench; go install github.com/notesbench/notesbench/cmd/notesbench@latest puts notesbench on $PATH", name)
	}
	return fmt.Errorf("%s: not found on $PATH (give its path, or a command that is on $PATH)", name)
}

// signal sends sig to the process's group, unless its leader was reaped.
func (p *process) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		signalGroup(p.cmd, sig)
	}
}

// stop ends the server as the MCP specification asks: its stdin closes, then
// SIGTERM, then SIGKILL; and then whatever is left of its process group.
func (p *process) stop() {
	p.stopped.Do(func() {
		p.unbind()
		p.stdin.Close()
		if !p.wait(exitWait) {
			p.signal(syscall.SIGTERM)
			if !p.wait(termWait) {
				p.signal(syscall.SIGKILL)
				<-p.exited
			}
		}
		p.stdout.Close()
	})
}

// kill ends the server's process group at once: for a server that failed.
func (p *process) kill() {
	p.stopped.Do(func() {
		p.unbind()
		p.signal(syscall.SIGKILL)
		<-p.exited
		p.stdin.Close()
		p.stdout.Close()
	})
}

// hasExited reports whether the server has exited.
func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
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

// died says how the server exited, with the last lines of its stderr and
// what it wrote on stdout that is no MCP message, or nil while it runs. A
// connection that broke is often seen before the exit is, so it waits a
// moment for it.
func (p *process) died() error {
	if !p.wait(200 * time.Millisecond) {
		return nil
	}
	status := "exit status 0"
	if p.err != nil {
		status = p.err.Error()
	}
	msg := "the server exited (" + status + ")"
	if last := p.tail.lastLines(tailLines); last != "" {
		msg += ": " + last
	}
	if stray := p.head.stray(); stray != "" {
		msg += "; " + stray
	}
	return errors.New(msg)
}

// tailLines is how many of the last lines of a dead server's stderr an
// error shows.
const tailLines = 5

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

// lastLines returns the last n lines of the stderr kept, joined by " | ".
func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSpace(t.buf), []byte("\n")) {
		if l := strings.TrimSpace(string(l)); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// head keeps the first bytes a server writes on stdout.
type head struct {
	mu  sync.Mutex
	buf []byte
}

// headSize is how much of a server's stdout head keeps.
const headSize = 120

// reader returns r, with what is read from it kept in h up to headSize.
func (h *head) reader(r io.ReadCloser) io.ReadCloser { return headReader{r, h} }

type headReader struct {
	r io.ReadCloser
	h *head
}

func (hr headReader) Close() error { return hr.r.Close() }

func (hr headReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	if n > 0 {
		hr.h.mu.Lock()
		if room := headSize - len(hr.h.buf); room > 0 {
			hr.h.buf = append(hr.h.buf, p[:min(n, room)]...)
		}
		hr.h.mu.Unlock()
	}
	return n, err
}

// stray says what the server wrote on stdout when its first bytes are no
// JSON-RPC message, "" otherwise: a log line there breaks the stream of
// messages, and the client sees only a parse error.
func (h *head) stray() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := bytes.TrimLeft(h.buf, " \t\r\n")
	if len(b) == 0 || b[0] == '{' {
		return ""
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return fmt.Sprintf("the server wrote %q on stdout, where MCP messages go (its logs belong on stderr)", strings.TrimSpace(string(line)))
}
