package crash

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// errDown is a call a kill cut off: it was sent, and no answer came. Its
// outcome is unknown.
var errDown = errors.New("the store process died before it answered")

// errNoChild is a call made while no child was up: it was not sent.
var errNoChild = errors.New("the store process is down")

// process is one child: its pipes and the calls waiting for an answer.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	dead  chan struct{} // closed when its output ended: it exited or was killed

	wmu     sync.Mutex // orders writes to stdin
	mu      sync.Mutex
	pending map[int64]chan reply
	nextID  int64
	down    bool
}

// startProcess starts a child and waits until it says its store is open.
func startProcess(ctx context.Context, cmd *exec.Cmd) (*process, error) {
	p := &process{cmd: cmd, dead: make(chan struct{}), pending: map[int64]chan reply{}}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the store process: %w", err)
	}
	ready := make(chan error, 1)
	go p.read(stdout, ready)
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = ctx.Err()
	case <-time.After(30 * time.Second):
		err = errors.New("the store process did not say it was ready within 30s")
	}
	if err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// read dispatches the child's answers until its output ends.
func (p *process) read(stdout io.Reader, ready chan<- error) {
	defer func() {
		p.mu.Lock()
		p.down = true
		for id, ch := range p.pending {
			ch <- reply{Failure: errDown.Error()}
			delete(p.pending, id)
		}
		p.mu.Unlock()
		close(p.dead)
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	first := true
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue // a line cut by the kill
		}
		if first {
			first = false
			switch {
			case r.Ready:
				ready <- nil
			case r.Fatal != "":
				ready <- fmt.Errorf("the store process could not open the store: %s", r.Fatal)
			default:
				ready <- fmt.Errorf("the store process began with %s", sc.Bytes())
			}
			continue
		}
		p.mu.Lock()
		ch, ok := p.pending[r.ID]
		delete(p.pending, r.ID)
		p.mu.Unlock()
		if ok {
			ch <- r
		}
	}
	if first {
		ready <- fmt.Errorf("the store process ended before it was ready")
	}
}

// call sends one request and waits for its answer. An answer that never comes
// because the child died is errDown.
func (p *process) call(ctx context.Context, req request) (json.RawMessage, error) {
	ch := make(chan reply, 1)
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		return nil, errNoChild
	}
	p.nextID++
	req.ID = p.nextID
	p.pending[req.ID] = ch
	p.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	p.wmu.Lock()
	_, err = p.stdin.Write(append(b, '\n'))
	p.wmu.Unlock()
	if err != nil {
		// The child is gone; read fails the pending call, unless it already did.
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
		return nil, errDown
	}
	select {
	case r := <-ch:
		if r.Failure != "" {
			if r.Failure == errDown.Error() {
				return nil, errDown
			}
			return nil, errors.New(r.Failure)
		}
		return r.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// kill sends SIGKILL and reaps the child. It is safe to call more than once.
func (p *process) kill() {
	if p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.dead // the output is drained: Wait may close the pipes
	_ = p.cmd.Wait()
}
