package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

// tracer is a Session that reports each call it makes to the server: the
// tool, its arguments and the reply, as the evidence of a clause. A
// profile's sessions do.
type tracer interface {
	Trace(func(tool string, args json.RawMessage, reply string))
}

// refusal is an error by which the server refused a call with a JSON-RPC
// error (mcpclient.ProtocolError).
type refusal interface {
	error
	JSONRPCCode() int64
}

// runner runs the clauses over typed sessions on one Note, for every
// target alike, and keeps the exchanges of the clause running as its
// evidence.
type runner struct {
	ctx     context.Context
	target  contract.Target
	capable contract.Capable // nil when the target has every capability
	opts    Options
	m       contract.Mapping
	// now tells the time of a reply: time.Now, or a test's clock.
	now func() time.Time

	b    contract.Backend
	s    *session // the runner's own session
	keys atomic.Int64

	mu  sync.Mutex                // guards what follows
	log []results.ConformExchange // the exchanges of the clause running
	// unsupported is the first call of the clause running that the target
	// could not make (errors.ErrUnsupported).
	unsupported error
	sessions    []*session // every session opened, to close
}

// session is a Session of the run; traced when it reports its own calls.
type session struct {
	contract.Session
	traced bool
	sent   atomic.Int64 // calls it reported
}

// open opens the run's Note and the runner's session, once: a failure here is
// notesbench's, which ends the run.
func (r *runner) open() error {
	if r.b != nil {
		return nil
	}
	b, err := r.target.Open(r.ctx, contract.RunSpec{Name: "conform", Variant: r.opts.Variant})
	if err != nil {
		return err
	}
	r.b = b
	if err := b.CreateNote(r.ctx, noteID); err != nil {
		return err
	}
	r.s, err = r.session()
	return err
}

// close closes every session and the run.
func (r *runner) close() {
	for _, s := range r.sessions {
		s.Close()
	}
	if r.b != nil {
		r.b.Close()
	}
}

// release closes sessions before the run ends: over stdio each is a
// server process.
func (r *runner) release(sessions []*session) {
	for _, s := range sessions {
		if s == nil {
			continue
		}
		s.Close()
		r.mu.Lock()
		r.sessions = slices.DeleteFunc(r.sessions, func(o *session) bool { return o == s })
		r.mu.Unlock()
	}
}

// session opens a session whose calls go into the log.
func (r *runner) session() (*session, error) {
	s, err := r.b.Session(r.ctx)
	if err != nil {
		return nil, err
	}
	return r.track(s), nil
}

// track returns s as a session of the run, whose calls go into the log.
func (r *runner) track(s contract.Session) *session {
	out := &session{Session: s}
	if t, ok := s.(tracer); ok {
		out.traced = true
		t.Trace(func(tool string, args json.RawMessage, reply string) {
			out.sent.Add(1)
			r.record(results.ConformExchange{Tool: tool, Request: slices.Clone(args), Reply: quoteIfNeeded(reply)})
		})
	}
	r.mu.Lock()
	r.sessions = append(r.sessions, out)
	r.mu.Unlock()
	return out
}

// check runs one clause. An error from it is a call that ended in an
// outcome the clause does not expect: the clause fails, with the exchanges
// as evidence. A clause with a call the target cannot make (one that ended
// in errors.ErrUnsupported: a write its profile cannot express) is not
// applicable, whatever it found. Only an ended ctx ends the run.
func (r *runner) check(cl clause, c results.ConformCheck) (results.ConformCheck, error) {
	r.mu.Lock()
	r.log, r.unsupported = nil, nil
	r.mu.Unlock()
	c, err := cl.run(r, c)
	if done := r.ctx.Err(); done != nil {
		if err == nil {
			err = done
		}
		return c, err
	}
	r.mu.Lock()
	unsupported := r.unsupported
	r.mu.Unlock()
	switch {
	case unsupported != nil:
		c.Outcome, c.Detail, c.Evidence = results.ConformNotApplicable, "not run: "+unsupported.Error(), nil
		return c, nil
	case err == nil:
		return c, nil
	}
	return r.fail(c, "%v", err)
}

// record adds ex to the evidence.
func (r *runner) record(ex results.ConformExchange) {
	r.mu.Lock()
	r.log = append(r.log, ex)
	r.mu.Unlock()
}

// keepLast keeps the last n exchanges of the evidence.
func (r *runner) keepLast(n int) {
	r.mu.Lock()
	if len(r.log) > n {
		r.log = slices.Delete(r.log, 0, len(r.log)-n)
	}
	r.mu.Unlock()
}

// quoteIfNeeded returns reply as JSON: itself when it is JSON, else a string.
func quoteIfNeeded(reply string) json.RawMessage {
	if json.Valid([]byte(reply)) {
		return json.RawMessage(reply)
	}
	b, _ := json.Marshal(reply)
	return b
}

// do makes one call on s and, unless s reported it on the wire, records
// the typed request and what the call ended in: the result, the result
// object of a contract outcome, or the error.
func do[Res any](r *runner, s *session, tool string, req any, call func() (Res, error)) (Res, error) {
	sent := s.sent.Load()
	res, err := call()
	if errors.Is(err, errors.ErrUnsupported) {
		r.mu.Lock()
		if r.unsupported == nil {
			r.unsupported = err
		}
		r.mu.Unlock()
	}
	if s.traced && s.sent.Load() > sent {
		return res, err
	}
	ex := results.ConformExchange{Tool: tool}
	ex.Request, _ = json.Marshal(req)
	if err == nil {
		ex.Reply, _ = json.Marshal(res)
	} else if out, ok := contract.ResultOf(err); ok {
		ex.Reply = out
	} else {
		ex.Error = err.Error()
	}
	r.record(ex)
	return res, err
}

func (r *runner) readTab(s *session, tabID string) (contract.TabContent, error) {
	return do(r, s, contract.ToolReadNoteTab, map[string]string{"note_id": noteID, "tab_id": tabID}, func() (contract.TabContent, error) {
		return s.ReadNoteTab(r.ctx, noteID, tabID)
	})
}

// read reads the text: the markdown tab.
func (r *runner) read(s *session) (contract.TabContent, error) { return r.readTab(s, "markdown") }

func (r *runner) edit(s *session, req contract.EditRequest) (contract.EditResult, error) {
	return do(r, s, contract.ToolEditNoteTab, req, func() (contract.EditResult, error) { return s.EditNoteTab(r.ctx, req) })
}

// write writes text over the markdown tab, expecting version v, with key.
func (r *runner) write(s *session, v contract.Version, key, text string) (contract.EditResult, error) {
	return r.edit(s, contract.EditRequest{NoteID: noteID, TabID: "markdown", ExpectedVersion: v, IdempotencyKey: key,
		Operation: contract.OpReplaceText, Text: text})
}

func (r *runner) list(s *session) (contract.TabList, error) {
	return do(r, s, contract.ToolListNoteTabs, map[string]string{"note_id": noteID}, func() (contract.TabList, error) {
		return s.ListNoteTabs(r.ctx, noteID)
	})
}

func (r *runner) create(s *session, req contract.CreateRequest) (contract.CreateResult, error) {
	return do(r, s, contract.ToolCreateNoteTab, req, func() (contract.CreateResult, error) { return s.CreateNoteTab(r.ctx, req) })
}

func (r *runner) addSource(s *session, req contract.SourceRequest) (contract.SourceResult, error) {
	return do(r, s, contract.ToolAddNoteSource, req, func() (contract.SourceResult, error) { return s.AddNoteSource(r.ctx, req) })
}

// key returns a fresh idempotency key.
func (r *runner) key(what string) string {
	return fmt.Sprintf("conform-%s-%d-%d", what, time.Now().UnixNano(), r.keys.Add(1))
}

func (r *runner) pause() { time.Sleep(r.opts.Pause) }

// fail ends a check as failed, with the exchanges so far as evidence.
func (r *runner) fail(c results.ConformCheck, format string, args ...any) (results.ConformCheck, error) {
	r.mu.Lock()
	c.Outcome, c.Detail, c.Evidence = results.ConformFail, fmt.Sprintf(format, args...), slices.Clone(r.log)
	r.mu.Unlock()
	return c, nil
}

func pass(c results.ConformCheck, format string, args ...any) (results.ConformCheck, error) {
	c.Outcome, c.Detail = results.ConformPass, fmt.Sprintf(format, args...)
	return c, nil
}

func info(c results.ConformCheck, format string, args ...any) (results.ConformCheck, error) {
	c.Outcome, c.Detail = results.ConformInfo, fmt.Sprintf(format, args...)
	return c, nil
}

// unexpected is a call that ended in an outcome its clause does not expect.
type unexpected struct {
	what string
	err  error
}

func (e *unexpected) Error() string { return e.what + " got " + describe(e.err) }
func (e *unexpected) Unwrap() error { return e.err }

// ended is err, when not nil, as the unexpected outcome of what.
func ended(what string, err error) error {
	if err == nil {
		return nil
	}
	return &unexpected{what: what, err: err}
}

// describe says what a call ended in: ok, a contract outcome as the tools
// report it, or the outcome (contract.OutcomeOf) and the error.
func describe(err error) string {
	var (
		conflict *contract.ConflictError
		schema   *contract.SchemaError
		invalid  *contract.InvalidArgumentError
		notFound *contract.NotFoundError
		rpc      refusal
	)
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &conflict):
		if conflict.Current == "" {
			return contract.ErrVersionConflict + " (naming no current version)"
		}
		return fmt.Sprintf("%s (current %s)", contract.ErrVersionConflict, conflict.Current)
	case errors.As(err, &schema):
		path := ""
		if len(schema.Violations) > 0 {
			path = schema.Violations[0].Path
		}
		return strings.TrimSpace(contract.ErrInvalidArgument + " " + path)
	case errors.As(err, &invalid):
		return strings.TrimSpace(contract.ErrInvalidArgument + " " + invalid.Field)
	case errors.As(err, &notFound):
		return strings.TrimSpace(contract.ErrNotFound + " " + notFound.Field)
	case errors.As(err, &rpc):
		return fmt.Sprintf("a JSON-RPC error %d", rpc.JSONRPCCode())
	case contract.KindOf(err) == contract.KindRefused:
		return err.Error()
	}
	return fmt.Sprintf("%s (%s): %v", contract.OutcomeOf(err), contract.KindOf(err), err)
}

// conflictOf returns the conflict err is.
func conflictOf(err error) (*contract.ConflictError, bool) {
	var ce *contract.ConflictError
	ok := errors.As(err, &ce)
	return ce, ok
}

// answered reports whether err is a reply of the server's, as opposed to
// no reply at all: a timeout, a lost reply, a server that died or was busy.
func answered(err error) bool {
	switch contract.KindOf(err) {
	case contract.KindTimeout, contract.KindReplyLost, contract.KindDied, contract.KindBusy:
		return false
	}
	return true
}

// replied says what an edit or create that may have replayed ended in.
func replied(err error, replayed bool) string {
	switch {
	case err != nil:
		return describe(err)
	case replayed:
		return "the first result, replayed"
	}
	return "ok"
}

// extend is text with line added at its end: a change every profile's write
// can make, whether it writes the whole content, a patch or an append.
func extend(text, line string) string {
	if text == "" {
		return line
	}
	return text + "\n" + line
}

// changed reports whether the text or its version moved from before to
// after.
func changed(before, after contract.TabContent) bool {
	return after.Version != before.Version || after.Text != before.Text
}
