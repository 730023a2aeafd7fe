package mcpclient

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// profiled is what a Target holds of the profile it maps the contract
// through: the profile, and the variables its set-up bound.
type profiled struct {
	p    *profile.Profile
	vars profile.Vars
	// contract: no profile was given. The target's Notes are made and named
	// as the built-in notes profile says, and every call is the contract's
	// own, its typed request sent whole and its result object read as the
	// contract defines it (passthrough), through the one path of every
	// call (session.send): the Notes contract over MCP is this, not a
	// second client.
	contract bool
}

// prepare checks that the server lists the profile's set-up tools and makes
// the profile's once-only set-up calls, binding their variables.
func (t *Target) prepare(ctx context.Context, p *profile.Profile, contract bool) error {
	var missing []string
	steps := p.Setup.Once
	if t.opts.Note == "" && !contract { // a document named needs no create; a server of the contract is asked at CreateNote
		steps = append(slices.Clip(steps), p.Setup.Create...)
	}
	for _, s := range steps {
		if !t.Offers(s.Tool) && !slices.Contains(missing, s.Tool) {
			missing = append(missing, s.Tool)
		}
	}
	if err := LacksError(t.name, "profile "+p.Name+"'s set-up", missing, t.listed()); err != nil {
		return err
	}
	if t.opts.Note != "" && !contract {
		for i, st := range p.Setup.Create {
			if len(st.Bind) > 0 {
				return fmt.Errorf("target %s: profile %s: setup.create[%d] binds variables of each document's, and the document named (%s) is not created", t.name, p.Name, i, t.opts.Note)
			}
		}
	}
	pr := &profiled{p: p, vars: profile.Vars{}, contract: contract}
	for name, v := range p.Variables {
		pr.vars[name] = profile.Text(v)
	}
	t.prof = pr
	for i, st := range p.Setup.Once {
		field := fmt.Sprintf("setup.once[%d]", i)
		r, err := t.callStep(ctx, t.control, field, &st.ToolCall, pr.vars)
		if err != nil {
			return err
		}
		if err := bind(p.Name, st, r, pr.vars); err != nil {
			return fmt.Errorf("target %s: %w", t.name, err)
		}
	}
	return t.sessionSetup(ctx, t.control)
}

// bind sets in vars the variables st binds from its reply r: a string, or
// a number, which keeps its JSON.
func bind(profileName string, st *profile.Step, r *profile.Reply, vars profile.Vars) error {
	for name, ex := range st.Bind {
		v, ok := ex.Value(r)
		if n, isNum := v.(json.Number); ok && isNum {
			vars[name] = profile.Raw(n.String(), []byte(n.String()))
			continue
		}
		if f, isNum := v.(float64); ok && isNum {
			n := strconv.FormatFloat(f, 'f', -1, 64)
			vars[name] = profile.Raw(n, []byte(n))
			continue
		}
		s, err := ex.String(profileName, r)
		if err != nil {
			return err
		}
		vars[name] = profile.Text(s)
	}
	return nil
}

// sessionSetup makes the calls of the profile's setup.session on c, which
// each session makes before its first call.
func (t *Target) sessionSetup(ctx context.Context, c *conn) error {
	for i, st := range t.prof.p.Setup.Session {
		if _, err := t.callStep(ctx, c, fmt.Sprintf("setup.session[%d]", i), &st.ToolCall, t.prof.vars); err != nil {
			return err
		}
	}
	return nil
}

// callStep makes a set-up call; an error result is an error naming the
// profile field.
func (t *Target) callStep(ctx context.Context, c *conn, field string, call *profile.ToolCall, vars profile.Vars) (*profile.Reply, error) {
	args, err := call.Args().Render(vars)
	if err != nil {
		return nil, fmt.Errorf("target %s: profile %s: %s: %v", t.name, t.prof.p.Name, field, err)
	}
	// A setup call is notesbench's, not the client's under test: the start
	// of a server bounds it (--start-timeout), not --call-timeout, which a
	// pause nemesis sets shorter than its pauses.
	r, err := c.replyWithin(ctx, call.Tool, args, t.startTimeout())
	if err != nil {
		return nil, err
	}
	if r.IsError {
		if t.prof.contract {
			if cerr := contract.ErrorOf(r.JSON()); cerr != nil {
				return nil, fmt.Errorf("target %s: %s: %w", t.name, call.Tool, cerr)
			}
		}
		return nil, fmt.Errorf("target %s: profile %s: %s (%s): error result %s", t.name, t.prof.p.Name, field, call.Tool, r.Short())
	}
	return r, nil
}

// Profile returns the profile the Target maps the contract through: the
// one given, or, without one, the built-in notes profile.
func (t *Target) Profile() *profile.Profile { return t.prof.p }

// requireProfiled is Require through the profile: each capability needs a
// section of the profile and the tool it calls, or, for a profile of a
// server that speaks the contract, the contract's own tools.
func (t *Target) requireProfiled(why string, caps ...contract.Capability) error {
	p := t.prof.p
	var unmapped, missing []string
	for _, c := range caps {
		section, tools := p.Capability(c)
		if t.prof.contract {
			tools = capabilityTools[c]
		}
		if tools == nil {
			if !slices.Contains(unmapped, section) {
				unmapped = append(unmapped, section)
			}
			continue
		}
		for _, tool := range tools {
			if !t.Offers(tool) && !slices.Contains(missing, tool) {
				missing = append(missing, tool)
			}
		}
	}
	if len(unmapped) > 0 {
		return fmt.Errorf("profile %s maps no %s, which %s needs (target %s lists %s)", p.Name, strings.Join(unmapped, " or "), why, t.name, strings.Join(t.listed(), ", "))
	}
	return LacksError(t.name, why, missing, t.listed())
}

// Mapping says what the target's write sends and what its versions are
// (contract.Mapped): through a profile, what its write maps; without one,
// the contract's own tools, which carry everything.
func (t *Target) Mapping() contract.Mapping {
	if t.prof.contract {
		m := contract.Mapping{Hints: t.hints()}
		if v, ok := t.Served(); ok {
			m.VersionFormat = v.VersionFormat
		}
		return m
	}
	p := t.prof.p
	m := contract.Mapping{Profile: p.Name, VersionFormat: p.VersionFormat(), ServerTools: p.ServerTools(), Hints: t.hints()}
	if w := p.Write; w != nil {
		m.VersionCheck, m.Key, m.VersionOmittable = w.VersionCheck, w.Args().Uses("idempotency_key"), w.Args().Drops("expected_version")
	}
	return m
}

// hints are the read-only and idempotent hints the server declares of the
// tools the target writes through; nil when it declares none.
func (t *Target) hints() map[string]contract.ToolHints {
	var out map[string]contract.ToolHints
	for name := range t.writeTools {
		tool, ok := t.tools[name]
		if !ok || tool.Annotations == nil {
			continue
		}
		h := contract.ToolHints{ReadOnly: tool.Annotations.ReadOnlyHint, Idempotent: tool.Annotations.IdempotentHint}
		if h == (contract.ToolHints{}) {
			continue
		}
		if out == nil {
			out = map[string]contract.ToolHints{}
		}
		out[name] = h
	}
	return out
}

// servedProfiled is the variant of a Target with a profile: a guard on the
// Note when its write checks the version, none otherwise; the versions the
// profile says the server has.
func (t *Target) servedProfiled() contract.Variant {
	v := contract.Variant{Guard: contract.GuardNone, VersionFormat: t.prof.p.VersionFormat()}
	if w := t.prof.p.Write; w != nil && w.VersionCheck {
		v.Guard = contract.GuardNote
	}
	return v.WithDefaults()
}

// describeProfiled says what the runs of a Target with a profile go to.
func (t *Target) describeProfiled() string {
	p := t.prof.p
	var s string
	switch {
	case p.Write == nil:
		s = fmt.Sprintf("MCP server %s through profile %s (read-only: no write", t.name, p.Name)
	case p.Write.VersionCheck:
		s = fmt.Sprintf("MCP server %s through profile %s (%s with a version check", t.name, p.Name, p.Write.Tool)
	default:
		s = fmt.Sprintf("MCP server %s through profile %s (%s with no version check", t.name, p.Name, p.Write.Tool)
	}
	if p.Caveat != "" {
		s += "; " + p.Caveat
	}
	return s + ")"
}

// openProfiled returns the Backend of one run through the profile.
func (t *Target) openProfiled(run contract.RunSpec) (contract.Backend, error) {
	var nonce [4]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	return &backend{t: t, run: runName(run.Name) + "." + hex.EncodeToString(nonce[:]), docs: map[string]string{}, bound: map[string]profile.Vars{},
		sessions: map[*session]bool{}, faults: t.newRunFaults(run.Seed)}, nil
}

// runName makes a run's name safe in a path or an ID.
func runName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, name)
	if name == "" {
		return "run"
	}
	return name
}

// backend is one run through a profile: each of the run's Notes is a
// document on the server, named by the profile's set-up.
type backend struct {
	t   *Target
	run string

	mu       sync.Mutex
	docs     map[string]string       // the run's Note ID → the document
	bound    map[string]profile.Vars // the run's Note ID → the variables its setup.create bound
	sessions map[*session]bool
	faults   *runFaults // the run's faults (faults.go), nil for none
}

// vars returns the variables every call of the run's Note noteID has.
func (b *backend) vars(noteID, doc string) profile.Vars {
	vars := make(profile.Vars, len(b.t.prof.vars)+10)
	for k, v := range b.t.prof.vars {
		vars[k] = v
	}
	vars["run"] = profile.Text(b.run)
	vars["note"] = profile.Text(noteID)
	if doc != "" {
		vars["document"] = profile.Text(doc)
	}
	b.mu.Lock()
	for k, v := range b.bound[noteID] {
		vars[k] = v
	}
	b.mu.Unlock()
	return vars
}

// document returns the document of the run's Note noteID.
func (b *backend) document(noteID string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	doc, ok := b.docs[noteID]
	return doc, ok
}

// noteOf returns the run's Note whose document is doc, and doc itself for
// a document of no Note of the run's.
func (b *backend) noteOf(doc string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for note, d := range b.docs {
		if d == doc {
			return note
		}
	}
	return doc
}

// CreateNote makes a fresh document for the Note: the profile's set-up, or
// the document the user named.
func (b *backend) CreateNote(ctx context.Context, noteID string) error {
	t := b.t
	p := t.prof.p
	var doc string
	if t.opts.Note != "" {
		t.mu.Lock()
		used := t.namedUsed
		t.namedUsed = true
		t.mu.Unlock()
		if used {
			if t.prof.contract {
				return fmt.Errorf("target %s offers no %s, and the Note named (%s) serves one run only", t.name, ext.ToolCreateNote, t.opts.Note)
			}
			return fmt.Errorf("target %s: the document named (%s) serves one run only", t.name, t.opts.Note)
		}
		doc = t.opts.Note
		if t.prof.contract {
			if err := b.checkFresh(ctx, noteID, doc); err != nil {
				return err
			}
		}
	} else {
		if t.prof.contract && !t.Offers(ext.ToolCreateNote) {
			return fmt.Errorf("target %s offers no %s: name an existing, fresh Note to run on", t.name, ext.ToolCreateNote)
		}
		var err error
		if doc, err = p.Setup.DocumentName(b.vars(noteID, "")); err != nil {
			return fmt.Errorf("target %s: profile %s: setup.document: %v", t.name, p.Name, err)
		}
		vars := b.vars(noteID, doc)
		bound := profile.Vars{}
		for i, st := range p.Setup.Create {
			field := fmt.Sprintf("setup.create[%d]", i)
			r, err := t.callStep(ctx, t.control, field, &st.ToolCall, vars)
			if err == nil && len(st.Bind) > 0 {
				b.mu.Lock()
				if err = bind(p.Name, st, r, bound); err != nil {
					err = fmt.Errorf("target %s: %w", t.name, err)
				}
				b.mu.Unlock()
				for k, v := range bound {
					vars[k] = v
				}
			}
			if err != nil {
				if t.prof.contract {
					return fmt.Errorf("target %s: creating Note %s: %w", t.name, noteID, errors.Unwrap(err))
				}
				return err
			}
			if i == 0 {
				// The document exists from its first create on: a later
				// step that fails leaves it to the teardown, with what
				// the steps before it bound.
				b.mu.Lock()
				b.docs[noteID], b.bound[noteID] = doc, bound
				b.mu.Unlock()
			}
		}
	}
	b.mu.Lock()
	b.docs[noteID] = doc
	b.mu.Unlock()
	return nil
}

// checkFresh makes sure the document named is as a new Note is: the three
// fixed tabs, no text, no sources.
func (b *backend) checkFresh(ctx context.Context, noteID, doc string) error {
	b.mu.Lock()
	b.docs[noteID] = doc
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.docs, noteID)
		b.mu.Unlock()
	}()
	s := &session{b: b, c: b.t.control, texts: map[contract.Version]string{}}
	named := func(err error) error { return fmt.Errorf("target %s: the Note named, %s: %w", b.t.name, doc, err) }
	l, err := s.ListNoteTabs(ctx, noteID)
	if err != nil {
		return named(err)
	}
	text, err := s.ReadNoteTab(ctx, noteID, "markdown")
	if err != nil {
		return named(err)
	}
	src, err := s.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: noteID, Kind: "sources", Limit: 1})
	if err != nil {
		return named(err)
	}
	if len(l.Tabs) != len(contract.FixedTabs) || text.Text != "" || len(src.Items) > 0 {
		return fmt.Errorf("target %s: the Note named, %s, is not fresh (%s, %s of text, sources %d+): a run needs a new Note",
			b.t.name, doc, plural.Count(len(l.Tabs), "tab"), plural.Count(len(text.Text), "character"), len(src.Items))
	}
	return nil
}

// Session opens an MCP session of its own: over stdio a new server process,
// over HTTP a new session on a connection of its own.
func (b *backend) Session(ctx context.Context) (contract.Session, error) {
	c, err := b.t.connectFor(ctx, b.faults)
	if err != nil {
		return nil, err
	}
	if err := b.t.sessionSetup(ctx, c); err != nil {
		c.close()
		return nil, err
	}
	s := &session{b: b, c: c, texts: map[contract.Version]string{}}
	b.mu.Lock()
	b.sessions[s] = true
	var first string // a Note of the run
	for note := range b.docs {
		if first == "" || note < first {
			first = note
		}
	}
	b.mu.Unlock()
	if b.t.prof.contract && first != "" {
		// A server that keeps its Notes in the memory of one process shows
		// another process none of them: say so rather than count them lost.
		_, err := s.ReadNoteTab(ctx, first, "markdown")
		var nf *contract.NotFoundError
		if errors.As(err, &nf) && nf.Field == "note_id" {
			s.Close()
			return nil, fmt.Errorf("target %s: a new session does not see the Notes made in another: the server must keep its Notes where every session sees them (over stdio each session is a process of its own: e.g. notesbench serve --db FILE)", b.t.name)
		}
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	if b.t.prof.contract && b.t.offersPerson() {
		return &personSession{s}, nil
	}
	return s, nil
}

// Close closes the sessions of the run still open, then makes the
// profile's teardown calls for each document of the run, unless the
// Target keeps them (Options.Keep).
func (b *backend) Close() error {
	b.faults.halt()
	err := closeAll(&b.mu, b.sessions, (*session).Close)
	return errors.Join(err, b.teardown(b.t.opts.Keep))
}

// teardownTimeout bounds the teardown of one run's documents.
const teardownTimeout = time.Minute

// teardown makes the profile's teardown calls for each document of the
// run, in the order of their Notes, or, with keep, lists the documents as
// kept. An error reply, or a JSON-RPC error the server answers with, is no
// error: the document may be gone already, or the whole store (a server that
// can no longer parse its file); a call that cannot be made is.
func (b *backend) teardown(keep bool) error {
	t := b.t
	steps := t.prof.p.Teardown
	if len(steps) == 0 || t.prof.contract || t.opts.Note != "" {
		return nil // a document named is the user's, never removed
	}
	b.mu.Lock()
	notes := make([]string, 0, len(b.docs))
	for note := range b.docs {
		notes = append(notes, note)
	}
	b.mu.Unlock()
	slices.Sort(notes)
	if keep {
		t.mu.Lock()
		for _, note := range notes {
			doc, _ := b.document(note)
			t.kept = append(t.kept, doc)
		}
		t.mu.Unlock()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer cancel()
	for _, note := range notes {
		doc, _ := b.document(note)
		vars := b.vars(note, doc)
		for i, st := range steps {
			args, err := st.Args().Render(vars)
			if err != nil {
				return fmt.Errorf("target %s: profile %s: teardown[%d]: %v", t.name, t.prof.p.Name, i, err)
			}
			if _, err := t.control.reply(ctx, st.Tool, args); err != nil {
				if pe := (*ProtocolError)(nil); errors.As(err, &pe) {
					continue // the server answered, with an error: as an error reply
				}
				return fmt.Errorf("target %s: profile %s: teardown[%d] (%s) of %s: %w", t.name, t.prof.p.Name, i, st.Tool, doc, err)
			}
		}
	}
	return nil
}

// Kept returns the documents the Target's runs left in place because it
// keeps them (Options.Keep), which the profile's teardown would have
// removed, in the order the runs ended.
func (t *Target) Kept() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.kept)
}

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

// contract reports whether the session's calls are the contract's own.
func (s *session) contract() bool { return s.b.t.prof.contract }

func (s *session) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	if s.contract() {
		return passthrough[contract.TabContent](ctx, s, contract.ToolReadNoteTab, map[string]string{"note_id": noteID, "tab_id": tabID}, noteID)
	}
	vars, err := s.vars(noteID)
	if err != nil {
		return contract.TabContent{}, err
	}
	p := s.prof()
	if tabID != "markdown" {
		return contract.TabContent{}, &contract.NotFoundError{Field: "tab_id", ID: tabID}
	}
	r, err := s.do(ctx, reading, "read", &p.Read.ToolCall, vars)
	if err != nil {
		return contract.TabContent{}, err
	}
	text, err := s.str(p.Read.Content, r)
	if err != nil {
		return contract.TabContent{}, err
	}
	v := digest(text)
	if p.Read.Version != nil {
		if v, err = s.version(p.Read.Version, r); err != nil {
			return contract.TabContent{}, err
		}
	}
	if p.Write != nil && p.Write.Mode() != profile.ModeContent {
		s.remember(v, text)
	}
	return contract.TabContent{NoteID: noteID, TabID: "markdown", Type: contract.TypeMarkdown, Label: "Text", Version: v, Text: text}, nil
}

func (s *session) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if s.contract() {
		return passthrough[contract.EditResult](ctx, s, contract.ToolEditNoteTab, req, req.NoteID)
	}
	p := s.prof()
	if req.TabID != "markdown" || req.Operation != contract.OpReplaceText {
		return contract.EditResult{}, contract.Invalid("operation", "profile %s writes the text (replace_text on the markdown tab) only", p.Name)
	}
	if p.Write == nil {
		return contract.EditResult{}, contract.Invalid("operation", "profile %s maps no write: its server is read-only", p.Name)
	}
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.EditResult{}, err
	}
	w := p.Write
	call, field, versionAt := &w.ToolCall, "write", w.Version
	switch w.Mode() {
	case profile.ModeContent:
		setContent(vars, w.Args(), req.Text)
	case profile.ModePatch, profile.ModeAppend:
		base, ok := s.base(req.ExpectedVersion)
		if !ok {
			return contract.EditResult{}, contract.Invalid("expected_version", "profile %s writes a change to what was read, and this session read no content at version %s", p.Name, req.ExpectedVersion)
		}
		if w.Mode() == profile.ModeAppend {
			added, ok := strings.CutPrefix(req.Text, base)
			if !ok {
				return contract.EditResult{}, contract.Invalid("text", "profile %s writes appends only, and the text does not start with the content read", p.Name)
			}
			vars["append"] = profile.Text(strings.TrimPrefix(added, "\n"))
		} else if base == "" && w.Empty != nil {
			// An empty document has no line to anchor a patch on: the
			// profile's write of a whole text.
			call, field = &w.Empty.ToolCall, "write.empty"
			if w.Empty.Version != nil {
				versionAt = w.Empty.Version
			}
			setContent(vars, w.Empty.Args(), req.Text)
		} else if base == "" {
			// The same, with the patch itself: nothing becomes the text.
			vars["old"], vars["new"] = profile.Text(""), profile.Text(req.Text)
		} else {
			old, repl, ok := patch(base, req.Text)
			if !ok {
				return contract.EditResult{}, contract.Invalid("text", "profile %s writes patches, and this change has no text of the document to anchor on", p.Name)
			}
			vars["old"], vars["new"] = profile.Text(old), profile.Text(repl)
		}
	}
	r, err := s.do(ctx, writing, field, call, vars)
	if err != nil {
		return contract.EditResult{}, err
	}
	v := digest(req.Text)
	if versionAt != nil {
		if v, err = s.version(versionAt, r); err != nil {
			return contract.EditResult{}, err
		}
	}
	if w.Mode() != profile.ModeContent {
		s.remember(v, req.Text)
	}
	res := contract.EditResult{NoteID: req.NoteID, TabID: req.TabID, Version: v, Changed: "text"}
	if w.Replayed != nil {
		res.Replayed = w.Replayed.Bool(r) && !s.twinned
	}
	return res, nil
}

// patch returns the smallest find-and-replace in whole lines of base that
// makes text: the lines of base the change touches (at least one, the line
// before an insertion) and what they become, grown by whole lines until the
// old text occurs once in base, so that a tool that replaces the first
// match replaces this one. False when base has no line to anchor on, or no
// span of its lines around the change occurs in it once.
func patch(base, text string) (old, repl string, ok bool) {
	p := 0
	for p < len(base) && p < len(text) && base[p] == text[p] {
		p++
	}
	sfx := 0
	for sfx < len(base)-p && sfx < len(text)-p && base[len(base)-1-sfx] == text[len(text)-1-sfx] {
		sfx++
	}
	start := strings.LastIndexByte(base[:p], '\n') + 1
	end := len(base) - sfx
	if i := strings.IndexByte(base[end:], '\n'); i >= 0 {
		end += i
	} else {
		end = len(base)
	}
	if start == end && start > 0 {
		// An insertion at a line's start: anchor on the line before.
		start = strings.LastIndexByte(base[:start-1], '\n') + 1
	}
	if start == end {
		return "", "", false
	}
	// Grow the span by a line before, then after, until it is unique.
	for strings.Count(base, base[start:end]) > 1 {
		switch {
		case start > 0:
			start = strings.LastIndexByte(base[:start-1], '\n') + 1
		case end < len(base):
			if i := strings.IndexByte(base[end+1:], '\n'); i >= 0 {
				end += 1 + i
			} else {
				end = len(base)
			}
		default:
			return "", "", false
		}
	}
	keep := len(base) - end
	return base[start:end], text[start : len(text)-keep], true
}

// setContent sets the variables of a whole text: {content}, and, where the
// template names it, {content_lines}, the text's lines as a JSON array (none
// for an empty text).
func setContent(vars profile.Vars, t *profile.Template, text string) {
	vars["content"] = profile.Text(text)
	if !t.Uses("content_lines") {
		return
	}
	lines := []string{}
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	js, _ := json.Marshal(lines)
	vars["content_lines"] = profile.Raw(string(js), js)
}

// fixedTabs are the tabs every Note has, as list_note_tabs shows them.
func fixedTabs() []contract.TabInfo {
	out := make([]contract.TabInfo, len(contract.FixedTabs))
	for i, t := range contract.FixedTabs {
		out[i] = contract.TabInfo{TabID: string(t), Type: t, Label: string(t), Position: i}
	}
	return out
}

func (s *session) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	if s.contract() {
		return passthrough[contract.TabList](ctx, s, contract.ToolListNoteTabs, map[string]string{"note_id": noteID}, noteID)
	}
	p := s.prof()
	l := p.List
	if l == nil {
		// Without a listing, a Note is its text: the version is the read's.
		read, err := s.ReadNoteTab(ctx, noteID, "markdown")
		if err != nil {
			return contract.TabList{}, err
		}
		return contract.TabList{NoteID: noteID, Version: read.Version, Tabs: fixedTabs()}, nil
	}
	vars, err := s.vars(noteID)
	if err != nil {
		return contract.TabList{}, err
	}
	r, err := s.do(ctx, reading, "list", &l.ToolCall, vars)
	if err != nil {
		return contract.TabList{}, err
	}
	items, err := s.items(l.Items, r)
	if err != nil {
		return contract.TabList{}, err
	}
	tabs := []contract.TabInfo{}
	if l.Type == nil {
		tabs = fixedTabs()
	}
	var labels []string
	for _, it := range items {
		label, ok := l.Label.ItemString(it)
		if !ok {
			continue // not an item of the listing's kind
		}
		tab := contract.TabInfo{TabID: label, Type: contract.TypeSheet, Label: label, Position: len(tabs)}
		if l.ID != nil {
			if id, ok := l.ID.ItemString(it); ok {
				tab.TabID = id
			}
		}
		if l.Type != nil {
			if typ, ok := l.Type.ItemString(it); ok {
				tab.Type = contract.TabType(typ)
			}
		}
		if l.Position != nil {
			if pos, ok := l.Position.ItemString(it); ok {
				if n, err := strconv.Atoi(pos); err == nil {
					tab.Position = n
				}
			}
		}
		tabs = append(tabs, tab)
		labels = append(labels, label)
	}
	v := digest(strings.Join(labels, "\n"))
	if l.Version != nil {
		if v, err = s.version(l.Version, r); err != nil {
			return contract.TabList{}, err
		}
	}
	return contract.TabList{NoteID: noteID, Version: v, Tabs: tabs}, nil
}

func (s *session) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	if s.contract() {
		return passthrough[contract.CreateResult](ctx, s, contract.ToolCreateNoteTab, req, req.NoteID)
	}
	p := s.prof()
	c := p.Create
	if c == nil {
		return contract.CreateResult{}, contract.Invalid("tab_type", "profile %s maps no create", p.Name)
	}
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.CreateResult{}, err
	}
	if req.Label != "" {
		vars["label"] = profile.Text(req.Label)
	}
	vars["tab_type"] = profile.Text(string(req.TabType))
	r, err := s.do(ctx, writing, "create", &c.ToolCall, vars)
	if err != nil {
		return contract.CreateResult{}, err
	}
	res := contract.CreateResult{NoteID: req.NoteID, TabID: req.Label, Type: req.TabType, Label: req.LabelOrDefault()}
	err = s.created(c, r, &res.TabID, &res.Version, &res.Replayed)
	return res, err
}

func (s *session) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	if s.contract() {
		return passthrough[contract.SourceResult](ctx, s, contract.ToolAddNoteSource, req, req.NoteID)
	}
	p := s.prof()
	a := p.AddSource
	if a == nil {
		return contract.SourceResult{}, contract.Invalid("url", "profile %s maps no add_source", p.Name)
	}
	vars, err := s.writeVars(req.NoteID, req.ExpectedVersion, req.IdempotencyKey)
	if err != nil {
		return contract.SourceResult{}, err
	}
	vars["url"] = profile.Text(req.URL)
	vars["title"] = profile.Text(req.Title)
	r, err := s.do(ctx, writing, "add_source", &a.ToolCall, vars)
	if err != nil {
		return contract.SourceResult{}, err
	}
	res := contract.SourceResult{NoteID: req.NoteID, SourceID: req.URL}
	err = s.created(a, r, &res.SourceID, &res.Version, &res.Replayed)
	return res, err
}

// created reads the reply r to c, a create with a key, into id, version and
// replayed, each only where the profile extracts it; it stops at the first
// extract that fails, with what it read before it left in place.
func (s *session) created(c *profile.CreateMapping, r *profile.Reply, id *string, version *contract.Version, replayed *bool) error {
	var err error
	if c.ID != nil {
		if *id, err = s.str(c.ID, r); err != nil {
			return err
		}
	}
	if c.Version != nil {
		if *version, err = s.version(c.Version, r); err != nil {
			return err
		}
	}
	if c.Replayed != nil {
		*replayed = c.Replayed.Bool(r) && !s.twinned
	}
	return nil
}

func (s *session) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	if s.contract() {
		return passthrough[contract.AttachmentPage](ctx, s, contract.ToolListNoteAttachments, req, req.NoteID)
	}
	page := contract.AttachmentPage{NoteID: req.NoteID, Kind: req.Kind, Items: []contract.Attachment{}}
	if page.Kind == "" {
		page.Kind = "sources"
	}
	vars, err := s.vars(req.NoteID)
	if err != nil {
		return page, err
	}
	p := s.prof()
	l := p.ListSources
	if l == nil || page.Kind != "sources" {
		return page, nil // a profile without a listing of sources has none to show
	}
	limit := req.Limit
	if limit == 0 {
		limit = contract.MaxPageLimit
	}
	vars["limit"] = profile.Raw(strconv.Itoa(limit), []byte(strconv.Itoa(limit)))
	if req.Cursor != "" {
		vars["cursor"] = profile.Text(req.Cursor)
	}
	r, err := s.do(ctx, reading, "list_sources", &l.ToolCall, vars)
	if err != nil {
		return page, err
	}
	items, err := s.items(l.Items, r)
	if err != nil {
		return page, err
	}
	for _, it := range items {
		url, ok := l.URL.ItemString(it)
		if !ok {
			continue // not a source
		}
		a := contract.Attachment{ID: url, URL: url}
		if l.ID != nil {
			if id, ok := l.ID.ItemString(it); ok {
				a.ID = id
			}
		}
		if l.Title != nil {
			a.Title, _ = l.Title.ItemString(it)
		}
		page.Items = append(page.Items, a)
	}
	if l.NextCursor != nil {
		if v, ok := l.NextCursor.Value(r); ok {
			page.NextCursor, _ = v.(string)
		}
	}
	return page, nil
}

func (s *session) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	if s.b.t.prof.contract {
		return passthrough[contract.SheetRange](ctx, s, contract.ToolReadSheetRange, req, req.NoteID)
	}
	return contract.SheetRange{}, contract.Invalid("tab_id", "profile %s maps no sheets", s.prof().Name)
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

var (
	_ contract.Session = (*session)(nil)
	_ Pinger           = (*session)(nil)
)
