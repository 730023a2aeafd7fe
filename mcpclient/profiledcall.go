package mcpclient

// A session through a profile, and its calls: each sent once, its reply
// classified as the profile says (a conflict, a refusal, a transient error, the
// document gone), its values extracted.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// session is one MCP session through a profile: a contract.Session whose
// Note is a document and whose text tab is the document's content. Every
// call goes through do, which classifies its reply once, as the profile
// says. It is safe for concurrent use.
type session struct {
	b *backend
	c *conn
	// setup, when set, bounds each call as a set-up call is bounded (the
	// probe before any run: startTimeout), not by Options.CallTimeout.
	setup time.Duration

	mu    sync.Mutex
	texts map[contract.Version]string // the content read or written at a version, for a patch's base
	order []contract.Version
	trace func(tool string, args json.RawMessage, reply string)
	// twinned says the last write sent was sent twice at once by a
	// duplicate fault, and answered ok: of it and its twin one made the
	// result and the other replayed it, and the history tells one write,
	// which made it (notReplayed). A session makes one call at a time.
	twinned bool
}

// maxTexts bounds the contents a session keeps for patches: the base of a
// write is one of the last few it read or wrote.
const maxTexts = 8

func (s *session) remember(v contract.Version, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.texts[v]; !ok {
		s.order = append(s.order, v)
		if len(s.order) > maxTexts {
			delete(s.texts, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.texts[v] = text
}

func (s *session) base(v contract.Version) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.texts[v]
	return t, ok
}

// prof returns the profile.
func (s *session) prof() *profile.Profile { return s.b.t.prof.p }

// vars returns the variables of a call on the Note noteID. An empty
// noteID, on a server of the contract, is sent as it is, for the server to
// refuse.
func (s *session) vars(noteID string) (profile.Vars, error) {
	doc, ok := s.b.document(noteID)
	if !ok {
		if noteID == "" && s.contract() {
			vars := s.b.vars(noteID, "")
			vars["document"] = profile.Text("")
			return vars, nil
		}
		return nil, &contract.NotFoundError{Field: "note_id", ID: noteID}
	}
	return s.b.vars(noteID, doc), nil
}

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

// do renders the call's arguments, makes it, and classifies the reply: the
// one place a reply's meaning is decided. It returns the reply of an ok,
// and otherwise the error of the outcome: a *contract.ConflictError (a
// write's conflict, with the current version where the profile finds it),
// the contract's own errors (a server of the contract), a
// *contract.RefusedError (an error class refused), a transient error tried
// again up to transientTries times, or an outcome nobody knows; a fault of
// the profile's is a *contract.ClientError.
func (s *session) do(ctx context.Context, kind callKind, field string, call *profile.ToolCall, vars profile.Vars) (*profile.Reply, error) {
	args, err := call.Args().Render(vars)
	if err != nil {
		return nil, &contract.ClientError{Err: fmt.Errorf("target %s: profile %s: %s: %v", s.b.t.name, s.prof().Name, field, err)}
	}
	r, err := s.send(ctx, kind, field, call.Tool, args)
	if r != nil {
		r.Vars = vars // what the extractions' where render
	}
	return r, err
}

// send makes a call of tool with args and classifies the reply (see do).
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
	if s.b.t.prof.contract && r.IsError {
		if err := contract.ErrorOf(r.JSON()); err != nil {
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

// probe tries the profile on a fresh document of its own before any run:
// its set-up, its read and, for a write of the whole content, a write of
// what was read. A profile that cannot read the server's replies, or whose
// calls the server refuses, is one error naming the field, before anything
// is measured; during a run the same failure is the server's doing (it lost
// the document, or answered half of it), counted as an unreadable reply.
//
// A read or a write whose tool the server does not list is not tried: its
// call could only fail, in the server's words (-32602 unknown tool). What a
// command uses it asks for (Require), and the server's lack is then the one
// line naming the tools missing and the tools listed; conform, which asks
// too, reports its clauses.
func (t *Target) probe(ctx context.Context) error {
	if t.Require("", contract.CapRead) != nil {
		return nil
	}
	b, err := t.openProfiled(contract.RunSpec{Name: "notesbench-probe"})
	if err != nil {
		return err
	}
	pb := b.(*backend)
	// The trial's document is notesbench's, not a run's: it goes, --keep
	// or not.
	defer pb.teardown(false)
	// Its calls are set-up, bounded as a start is: a short --call-timeout
	// is for the run's calls, and a loaded machine may answer the first
	// ones slowly.
	s := &session{b: pb, c: t.control, texts: map[contract.Version]string{}, setup: t.startTimeout()}
	trying := func(err error) error {
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w (tried on a fresh document before any run)", unwrapOutcome(err))
	}
	if err := b.CreateNote(ctx, "probe"); err != nil {
		return trying(err)
	}
	read, err := s.ReadNoteTab(ctx, "probe", "markdown")
	if err != nil {
		return trying(err)
	}
	if w := t.prof.p.Write; w == nil || w.Mode() != profile.ModeContent || t.Require("", contract.CapWrite) != nil {
		return nil
	}
	_, err = s.EditNoteTab(ctx, contract.EditRequest{NoteID: "probe", TabID: "markdown", ExpectedVersion: read.Version,
		IdempotencyKey: "notesbench-probe", Operation: contract.OpReplaceText, Text: read.Text})
	if err != nil {
		return trying(err)
	}
	return nil
}

// unwrapOutcome returns the error an outcome's wrapping carries, for a
// message that is the server's or the profile's words alone.
func unwrapOutcome(err error) error {
	var ie *contract.IndeterminateError
	if errors.As(err, &ie) && ie.Err != nil {
		return ie.Err
	}
	return err
}

// writeVars returns the variables of a write on the Note noteID that expects
// version v and sends key.
func (s *session) writeVars(noteID string, v contract.Version, key string) (profile.Vars, error) {
	vars, err := s.vars(noteID)
	if err != nil {
		return nil, err
	}
	if val := versionValue(v); val.Set {
		vars["expected_version"] = val
	}
	vars["idempotency_key"] = profile.Text(key)
	return vars, nil
}

// digest is the version of a content on a server without versions: the
// start of its SHA-256, which tells every content apart.
func digest(text string) contract.Version {
	sum := sha256.Sum256([]byte(text))
	return contract.Version("sha256:" + hex.EncodeToString(sum[:8]))
}

// versionValue is a version as a template variable: a counter stays a
// number, as its text; an empty version has no value, so a member that is
// the version alone is left out.
func versionValue(v contract.Version) profile.VarValue {
	if v == "" {
		return profile.VarValue{}
	}
	if contract.IsCounter(string(v)) {
		return profile.Raw(string(v), []byte(v))
	}
	return profile.Text(string(v))
}
