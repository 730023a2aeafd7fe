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
