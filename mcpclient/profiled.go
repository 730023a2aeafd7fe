package mcpclient

import (
	"context"
	"crypto/rand"
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
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// profiled is what a Target holds of the profile it maps the contract
// through: the profile (for a server of the contract, the built-in notes
// profile), and the variables its set-up bound.
type profiled struct {
	p    *profile.Profile
	vars profile.Vars
}

// newProfiled returns what a Target holds of p before its set-up: its
// variables.
func newProfiled(p *profile.Profile) *profiled {
	pr := &profiled{p: p, vars: profile.Vars{}}
	for name, v := range p.Variables {
		pr.vars[name] = profile.Text(v)
	}
	return pr
}

// lacksSetup is the error of a server that does not list the tools of
// steps, the profile's set-up; nil when it lists them all.
func (t *Target) lacksSetup(steps []*profile.Step) error {
	var missing []string
	for _, s := range steps {
		if !t.Offers(s.Tool) && !slices.Contains(missing, s.Tool) {
			missing = append(missing, s.Tool)
		}
	}
	return LacksError(t.name, "profile "+t.prof.p.Name+"'s set-up", missing, t.listed())
}

// setUp makes the profile's once-only set-up calls, binding their
// variables, then its session set-up on the control session.
func (t *Target) setUp(ctx context.Context) error {
	pr := t.prof
	for i, st := range pr.p.Setup.Once {
		field := fmt.Sprintf("setup.once[%d]", i)
		r, err := t.callStep(ctx, t.control, field, &st.ToolCall, pr.vars)
		if err != nil {
			return err
		}
		if err := bind(pr.p.Name, st, r, pr.vars); err != nil {
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

// callStep makes a set-up call; an error result is the contract's error it
// says (errorOf), or else an error naming the profile field.
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
		if cerr := t.codec.errorOf(r); cerr != nil {
			return nil, fmt.Errorf("target %s: %s: %w", t.name, call.Tool, cerr)
		}
		return nil, fmt.Errorf("target %s: profile %s: %s (%s): error result %s", t.name, t.prof.p.Name, field, call.Tool, r.Short())
	}
	return r, nil
}

// Profile returns the profile the Target maps the contract through: the
// one given, or, without one, the built-in notes profile.
func (t *Target) Profile() *profile.Profile { return t.prof.p }

// Require returns an error naming the tools of caps the server does not
// list, and the tools it lists, for the experiment why names; nil when it
// lists them all. Each capability needs the tools its codec calls for it
// (codec.capability), and an error names a section the profile does not map.
func (t *Target) Require(why string, caps ...contract.Capability) error {
	p := t.prof.p
	var unmapped, missing []string
	for _, c := range caps {
		section, tools := t.codec.capability(t, c)
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
// the contract's own tools, which carry everything. Either way it names
// the hints the server declares of the tools written through.
func (t *Target) Mapping() contract.Mapping {
	m := t.codec.mapping(t)
	m.Hints = t.hints()
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

// firstNote returns the first of the run's Notes in the order of their
// IDs; "" when it has none.
func (b *backend) firstNote() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var first string
	for note := range b.docs {
		if first == "" || note < first {
			first = note
		}
	}
	return first
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

// CreateNote makes a fresh document for the Note, as the codec makes one
// (codec.createNote): the profile's set-up, or the document the user named.
func (b *backend) CreateNote(ctx context.Context, noteID string) error {
	return b.t.codec.createNote(ctx, b, noteID)
}

// claimNamed reports whether the document the user named (Options.Note) is
// still free, and takes it for the run that asks: it serves one run only.
func (t *Target) claimNamed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	used := t.namedUsed
	t.namedUsed = true
	return !used
}

// documentName is the name the profile's set-up gives the document of the
// run's Note noteID.
func (b *backend) documentName(noteID string) (string, error) {
	p := b.t.prof.p
	doc, err := p.Setup.DocumentName(b.vars(noteID, ""))
	if err != nil {
		return "", fmt.Errorf("target %s: profile %s: setup.document: %v", b.t.name, p.Name, err)
	}
	return doc, nil
}

// createDocument makes the profile's setup.create calls for the document
// doc of the run's Note noteID, binding their variables, and records it.
// The document exists from its first create on: a later step that fails
// leaves it to the teardown, with what the steps before it bound.
func (b *backend) createDocument(ctx context.Context, noteID, doc string) error {
	t := b.t
	p := t.prof.p
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
			return err
		}
		if i == 0 {
			b.mu.Lock()
			b.docs[noteID], b.bound[noteID] = doc, bound
			b.mu.Unlock()
		}
	}
	b.setDocument(noteID, doc)
	return nil
}

// setDocument records doc as the document of the run's Note noteID.
func (b *backend) setDocument(noteID, doc string) {
	b.mu.Lock()
	b.docs[noteID] = doc
	b.mu.Unlock()
}

// Session opens an MCP session of its own: over stdio a new server process,
// over HTTP a new session on a connection of its own; the codec makes it the
// run's contract.Session (codec.session).
func (b *backend) Session(ctx context.Context) (contract.Session, error) {
	c, err := b.t.connectFor(ctx, b.faults)
	if err != nil {
		return nil, err
	}
	if err := b.t.sessionSetup(ctx, c); err != nil {
		c.close()
		return nil, err
	}
	s := &session{b: b, c: c}
	b.mu.Lock()
	b.sessions[s] = true
	b.mu.Unlock()
	return b.t.codec.session(ctx, s)
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
// kept; the notes profile, of a server of the contract, has none. An error
// reply, or a JSON-RPC error the server answers with, is no error: the
// document may be gone already, or the whole store (a server that can no
// longer parse its file); a call that cannot be made is.
func (b *backend) teardown(keep bool) error {
	t := b.t
	steps := t.prof.p.Teardown
	if len(steps) == 0 || t.opts.Note != "" {
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
