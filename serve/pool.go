package serve

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// strategy is how the calls of one MCP session get a contract session.
type strategy int

const (
	// pooled keeps the idle contract sessions of an MCP session and opens
	// another only for a call that arrives while all are busy.
	pooled strategy = iota
	// serialized runs the calls of an MCP session one at a time on one
	// contract session.
	serialized
	// perCall opens a contract session for every call and closes it after.
	perCall
)

// pool holds the contract sessions of one MCP session.
type pool struct {
	b        contract.Backend
	id       int
	strategy strategy

	serial sync.Mutex // held for a whole call under serialized

	mu     sync.Mutex
	idle   []contract.Session
	closed bool
}

// call runs fn on a contract session of the pool's own.
func (p *pool) call(ctx context.Context, fn func(contract.Session) (json.RawMessage, error)) (json.RawMessage, error) {
	if p.strategy == serialized {
		p.serial.Lock()
		defer p.serial.Unlock()
	}
	cs, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	out, err := fn(cs)
	if err != nil || p.strategy == perCall {
		// A session that failed is not trusted again.
		return out, errors.Join(err, cs.Close())
	}
	p.put(cs)
	return out, nil
}

func (p *pool) get(ctx context.Context) (contract.Session, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		cs := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return cs, nil
	}
	p.mu.Unlock()
	return p.b.Session(ctx)
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
