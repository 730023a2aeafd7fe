package serve

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// pool holds the contract sessions the server's calls run on, shared by every
// MCP session: a call takes an idle one or opens another, and gives it back
// when done. At most max are in use at once, so a server never holds more
// database connections than that, however many clients it serves and however
// long they stay idle; a call that finds them all busy waits for one. A
// contract.Session is not safe for concurrent use, so one serves one call at a
// time; between calls it belongs to no client.
type pool struct {
	b    contract.Backend
	busy chan struct{} // one token per session in use

	mu     sync.Mutex
	idle   []contract.Session
	closed bool
}

func newPool(b contract.Backend, max int) *pool {
	return &pool{b: b, busy: make(chan struct{}, max)}
}

// errPoolClosed answers a call that comes after the pool closed.
var errPoolClosed = errors.New("the server is closed")

// call runs fn on a contract session of the pool. A session whose call
// failed (not a contract outcome: those are results) is not trusted again: it
// is closed, and the next call opens a fresh one, which for a database
// server reconnects. A read (readOnly) that failed on a session the pool had
// kept idle, whose connection may have died meanwhile (a database server that
// ended it), is made again on another, until it succeeds or fails on a
// session opened for it: a read changes nothing, so running it again is safe.
// A write is not made again: its outcome is unknown, and the client resends
// it with its key.
func (p *pool) call(ctx context.Context, readOnly bool, fn func(contract.Session) (json.RawMessage, error)) (json.RawMessage, error) {
	select {
	case p.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.busy }()
	for {
		cs, kept, err := p.get(ctx)
		if err != nil {
			return nil, err
		}
		out, err := fn(cs)
		if err == nil {
			p.put(cs)
			return out, nil
		}
		err = errors.Join(err, cs.Close())
		if !readOnly || !kept || ctx.Err() != nil {
			return out, err
		}
	}
}

// get returns an idle session (kept true) or a new one.
func (p *pool) get(ctx context.Context) (contract.Session, bool, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, errPoolClosed
	}
	if n := len(p.idle); n > 0 {
		cs := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return cs, true, nil
	}
	p.mu.Unlock()
	cs, err := p.b.Session(ctx)
	return cs, false, err
}

func (p *pool) put(cs contract.Session) {
	p.mu.Lock()
	if !p.closed {
		p.idle = append(p.idle, cs)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	cs.Close()
}

// close closes the idle sessions; one still in use is closed when it comes
// back.
func (p *pool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for _, cs := range p.idle {
		errs = append(errs, cs.Close())
	}
	p.idle = nil
	return errors.Join(errs...)
}
