package clientaudit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notesbench/notesbench/serve"
)

// A driver whose library starts its server itself runs {serve}: the relay,
// a process of notesbench's own (Relay) that passes its stdin and stdout to
// the audit over a Unix socket and says its process ID first. The audit
// serves each relay an MCP session of its server, reads every message
// between them, and makes the run's fault: a reply dropped, late, or the
// relay killed after the write committed, as a server process killed -9
// would be. A library or driver that starts its server again starts a new
// relay, on the same Notes.

// relayHello starts what a relay says first: "notesbench-relay PID".
const relayHello = "notesbench-relay "

// maxLine bounds a line of a relay's stream.
const maxLine = serve.MaxMessageBytes + 1<<10

// Relay passes in to the audit listening at socket and what it answers to
// out, until either ends: the process {serve} runs.
func Relay(socket string, in io.Reader, out io.Writer) error {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return fmt.Errorf("reaching the audit: %w", err)
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "%s%d\n", relayHello, os.Getpid()); err != nil {
		return err
	}
	done := make(chan error, 2)
	go func() {
		_, err := io.Copy(c, in)
		c.(*net.UnixConn).CloseWrite()
		done <- err
	}()
	go func() {
		_, err := io.Copy(out, c)
		done <- err
	}()
	return <-done
}

// relays serves the relays of one run.
type relays struct {
	ctx  context.Context
	srv  *serve.Server
	led  *ledger
	hold time.Duration
	slow time.Duration
	ln   net.Listener
	wg   sync.WaitGroup
}

func listenRelays(ctx context.Context, dir string, srv *serve.Server, led *ledger, hold, slow time.Duration) (*relays, string, error) {
	socket := dir + "/relay.sock"
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return nil, "", err
	}
	r := &relays{ctx: ctx, srv: srv, led: led, hold: hold, slow: slow, ln: ln}
	r.wg.Add(1)
	go r.accept()
	return r, socket, nil
}

func (r *relays) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.session(c)
		}()
	}
}

// close stops listening and waits for every relay's session to end.
func (r *relays) close() {
	r.ln.Close()
	r.wg.Wait()
}

// inFlight is a write request a relay passed on, waiting for its reply.
type inFlight struct {
	n     int
	fault string
}

// session serves one relay: an MCP session of the server, every message
// between them read, the fault made on the writes the ledger names.
func (r *relays) session(c net.Conn) {
	defer c.Close()
	in := bufio.NewReaderSize(c, 64<<10)
	hello, err := in.ReadString('\n')
	if err != nil || !strings.HasPrefix(hello, relayHello) {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(hello, relayHello)))
	if err != nil || pid <= 1 {
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = r.srv.Serve(ctx, &serve.StdioTransport{Reader: toServer, Writer: toClient})
		toClient.Close()
	}()

	var mu sync.Mutex
	waiting := map[string]inFlight{}
	var writeMu sync.Mutex // a late reply is written beside the others
	send := func(line []byte) {
		writeMu.Lock()
		defer writeMu.Unlock()
		if _, err := c.Write(append(line, '\n')); err != nil {
			c.Close()
		}
	}
	var dead sync.Once
	kill := func() {
		dead.Do(func() {
			if proc, err := os.FindProcess(pid); err == nil {
				_ = proc.Kill()
			}
			c.Close()
		})
	}
	// The client's messages to the server.
	go func() {
		defer fromClient.Close()
		for {
			line, err := readLine(in)
			if len(line) > 0 {
				var m message
				if json.Unmarshal(line, &m) == nil {
					r.led.heard(m)
					if m.Method == "tools/call" && writeTools[m.Params.Name] && len(m.ID) > 0 {
						n, fault := r.led.begin(m)
						mu.Lock()
						waiting[string(m.ID)] = inFlight{n, fault}
						mu.Unlock()
					}
				}
				if _, err := fromClient.Write(append(line, '\n')); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	// The server's messages to the client.
	out := bufio.NewReaderSize(fromServer, 64<<10)
	for {
		line, err := readLine(out)
		if len(line) > 0 {
			var reply struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(line, &reply)
			mu.Lock()
			p, ok := waiting[string(reply.ID)]
			delete(waiting, string(reply.ID))
			mu.Unlock()
			forward := true
			if ok {
				r.led.answered(p.n, outcomeOf(200, line))
				switch p.fault {
				case Kill:
					kill()
					forward = false
				case LoseReply:
					forward = false
					go func() {
						if waited(r.hold, ctx.Done(), nil) {
							kill() // no reply, then no server: the library learns it from the pipe's end
						}
					}()
				case SlowReply:
					forward = false
					go func() {
						if waited(r.slow, ctx.Done(), nil) {
							send(line)
						}
					}()
				}
			}
			if forward {
				send(line)
			}
		}
		if err != nil {
			break
		}
	}
	cancel()
	fromServer.Close()
	<-served
}

// readLine reads one line without its newline; a line past maxLine is an
// error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := r.ReadLine()
		line = append(line, part...)
		if len(line) > maxLine {
			return nil, errors.New("a line past the largest message")
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}
