package mcpclient

// A session, and its calls: each sent once, its reply classified in one place
// (the contract's own errors where the codec reads them, else as the profile
// says: a conflict, a refusal, a transient error, the document gone), its
// values extracted.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// session is one MCP session of a run: what its codec makes a
// contract.Session of (codec.session). Every call goes through send, which
// classifies its reply once. It is safe for concurrent use.
type session struct {
	b *backend
	c *conn
	// setup, when set, bounds each call as a set-up call is bounded (the
	// probe before any run: startTimeout), not by Options.CallTimeout.
	setup time.Duration

	mu    sync.Mutex
	trace func(tool string, args json.RawMessage, reply string)
	// twinned says the last write sent was sent twice at once by a
	// duplicate fault, and answered ok: of it and its twin one made the
	// result and the other replayed it, and the history tells one write,
	// which made it (notReplayed). A session makes one call at a time.
	twinned bool
}

// prof returns the profile.
func (s *session) prof() *profile.Profile { return s.b.t.prof.p }

// Trace has every call of the session reported to f: the tool, the
// arguments sent and the reply's text (conform's evidence).
func (s *session) Trace(f func(tool string, args json.RawMessage, reply string)) {
	s.mu.Lock()
	s.trace = f
	s.mu.Unlock()
}

// traced reports one call to the session's trace, if any.
func (s *session) traced(tool string, args json.RawMessage, r *profile.Reply, err error) {
	s.mu.Lock()
	trace := s.trace
	s.mu.Unlock()
	if trace == nil {
		return
	}
	reply := ""
	switch {
	case r != nil && r.IsError:
		reply = "isError: " + r.Text
	case r != nil:
		reply = r.Text
	case err != nil:
		reply = err.Error()
	}
	trace(tool, args, reply)
}

// A call's kind: what its reply may be besides an ok.
type callKind int

const (
	// reading: an error reply is a refusal or an outcome nobody knows.
	reading callKind = iota
	// writing: a reply may also be a conflict.
	writing
)

// send makes a call of tool with args and classifies the reply: the one
// place a reply's meaning is decided. It returns the reply of an ok, and
// otherwise the error of the outcome: the contract's own errors (where the
// codec reads them, errorOf), a *contract.ConflictError (a write's conflict,
// with the current version where the profile finds it), a
// *contract.RefusedError (an error class refused), a transient error tried
// again up to transientTries times, or an outcome nobody knows; a fault of
// the profile's is a *contract.ClientError.
func (s *session) send(ctx context.Context, kind callKind, field, tool string, args json.RawMessage) (*profile.Reply, error) {
	pause := transientPause
	for try := 1; ; try++ {
		timeout := s.c.t.opts.CallTimeout
		if s.setup > 0 {
			timeout = s.setup
		}
		r, err := s.c.replyWithin(ctx, tool, args, timeout)
		s.traced(tool, args, r, err)
		if err != nil {
			return nil, err
		}
		err = s.classify(kind, field, tool, r)
		twin := s.c.tookTwin()
		s.twinned = twin && err == nil
		if twin && err != nil && contract.OutcomeOf(err) == contract.Fail && !contract.Stops(err) {
			// The twin a duplicate fault sent beside it may have been
			// applied: this call's outcome is not known (and it is no
			// longer the refusal it was: %v, not %w).
			return nil, contract.Indeterminate(contract.KindTwinSent, fmt.Errorf("%v; a twin of it, sent at the same time by a fault notesbench made, may have been applied", err))
		}
		var tr *transientError
		if !errors.As(err, &tr) {
			return r, err
		}
		if try == transientTries {
			return nil, contract.Indeterminatef(contract.KindBusy, "target %s: %s (%s): still %s after %d tries", s.b.t.name, field, tool, r.Short(), try)
		}
		if err := sleepCtx(ctx, pause); err != nil {
			return nil, err
		}
		pause *= 2
	}
}

// transientError is a reply an error class calls transient.
type transientError struct{ reply string }

func (e *transientError) Error() string { return "transient: " + e.reply }

// classify returns the error of the outcome reply r is, nil for an ok.
func (s *session) classify(kind callKind, field, tool string, r *profile.Reply) error {
	p := s.prof()
	if r.IsError {
		if err := s.b.t.codec.errorOf(r); err != nil {
			return s.b.unmapError(err)
		}
	}
	if kind == writing {
		ok, err := p.Conflict.Matches(p.Name, r)
		if err != nil {
			return &contract.ClientError{Err: fmt.Errorf("target %s: %w", s.b.t.name, err)}
		}
		if ok {
			return s.conflict(r)
		}
	}
	if !r.IsError && !p.ClassifiesOK() {
		return nil
	}
	// An error class that says is_error false classes replies that are
	// not marked as errors too (a status "error" in a reply of text).
	class, err := p.Classify(r)
	if err != nil {
		return &contract.ClientError{Err: fmt.Errorf("target %s: %w", s.b.t.name, err)}
	}
	switch class {
	case "":
		if !r.IsError {
			return nil
		}
	case profile.ClassRefused:
		return &contract.RefusedError{Target: s.b.t.name, Field: field, Tool: tool, Reply: r.Short()}
	case profile.ClassTransient:
		return &transientError{reply: r.Short()}
	case profile.ClassGone:
		return &contract.GoneError{Target: s.b.t.name, Field: field, Tool: tool, Reply: r.Short()}
	}
	return contract.Indeterminatef(contract.KindServerError, "target %s: profile %s: %s (%s): error result %s", s.b.t.name, p.Name, field, tool, r.Short())
}

// conflict is the conflict reply r is, with the current version where the
// profile finds it.
func (s *session) conflict(r *profile.Reply) error {
	c := s.prof().Conflict
	var cur contract.Version
	if c.CurrentVersion != nil {
		v, err := s.version(c.CurrentVersion, r)
		if err != nil {
			return err
		}
		cur = v
	}
	return &contract.ConflictError{Current: cur}
}

// extracted turns a failed extraction from a real reply into its outcome:
// a reply nobody can read as the profile says (the server lost the document,
// or answered half of it), an outcome nobody knows. Whether the profile can
// read the server's replies at all was tried before any run (probe).
func (s *session) extracted(err error) error {
	if err == nil {
		return nil
	}
	var xe *profile.ExtractError
	if !errors.As(err, &xe) {
		return &contract.ClientError{Err: err}
	}
	return contract.Indeterminate(contract.KindUnreadable, fmt.Errorf("target %s: %w", s.b.t.name, err))
}

func (s *session) str(ex *profile.Extract, r *profile.Reply) (string, error) {
	v, err := ex.String(s.prof().Name, r)
	return v, s.extracted(err)
}

func (s *session) version(ex *profile.Extract, r *profile.Reply) (contract.Version, error) {
	v, err := ex.Version(s.prof().Name, r)
	return v, s.extracted(err)
}

func (s *session) items(ex *profile.Extract, r *profile.Reply) ([]any, error) {
	v, err := ex.Items(s.prof().Name, r)
	return v, s.extracted(err)
}

// Pinger is what a Session over MCP adds for the transport's floor: the
// cheapest round trip its protocol has, one that touches no tool (an MCP
// ping, or a server/discover on 2026-07-28, which has no ping).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Ping makes the round trip of the transport's floor (conn.ping).
func (s *session) Ping(ctx context.Context) error {
	if err := s.c.ping(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.c.fail(s.c.floorCall(), err)
	}
	return nil
}

// Close ends the MCP session; over stdio, its server process.
func (s *session) Close() error {
	s.b.mu.Lock()
	open := s.b.sessions[s]
	delete(s.b.sessions, s)
	s.b.mu.Unlock()
	if !open || s.c == s.b.t.control {
		return nil
	}
	return s.c.close()
}
