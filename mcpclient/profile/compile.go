package profile

// Compiling a profile: what the schema cannot check (the variables each
// template may name, the members of a newer format_version, one write mode),
// and its templates and extractions made ready to render and apply.

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"sort"
)

// compile checks what the schema cannot and compiles the templates and
// extractions.
func (p *Profile) compile() error {
	if err := p.checkFormat(); err != nil {
		return err
	}
	known := map[string]bool{}
	consts := Vars{}
	names := make([]string, 0, len(p.Variables))
	for name := range p.Variables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := p.define("variables."+name, name, known); err != nil {
			return err
		}
		consts[name] = Text(p.Variables[name])
	}
	p.consts = consts
	for i, st := range p.Setup.Once {
		f := fmt.Sprintf("setup.once[%d]", i)
		if err := p.compileStep(f, "setup.once", st, known); err != nil {
			return err
		}
		if err := p.compileBinds(f, st, known); err != nil {
			return err
		}
	}
	for i, st := range p.Setup.Session {
		f := fmt.Sprintf("setup.session[%d]", i)
		if err := p.compileStep(f, "setup.session", st, known); err != nil {
			return err
		}
		if len(st.Bind) > 0 {
			return &Error{Field: f + ".bind", Err: errors.New("only setup.once and setup.create bind variables")}
		}
	}
	var err error
	if p.Setup.document, err = compileString("setup.document", p.Setup.Document, varsOf("setup.document", known)); err != nil {
		return err
	}
	if err := p.checkTemplate("setup.document", p.Setup.document); err != nil {
		return err
	}
	if !p.Setup.document.Uses("run") || !p.Setup.document.Uses("note") {
		return &Error{Field: "setup.document", Err: errors.New("must name {run} and {note}, so that every Note of every run has a document of its own")}
	}
	for i, st := range p.Setup.Create {
		f := fmt.Sprintf("setup.create[%d]", i)
		if err := p.compileStep(f, "setup.create", st, known); err != nil {
			return err
		}
		if err := p.compileBinds(f, st, known); err != nil {
			return err
		}
	}
	if err := p.compileCall("read", "read", &p.Read.ToolCall, known); err != nil {
		return err
	}
	if err := compileExtracts("read", varsOf("read", known), map[string]*Extract{"content": p.Read.Content, "version": p.Read.Version}); err != nil {
		return err
	}
	if err := p.compileWrite(known); err != nil {
		return err
	}
	if err := p.compileMatchers(); err != nil {
		return err
	}
	return p.compileOthers(known)
}

// compileWrite compiles the write, when the profile has one: its call, its
// extracts, and its mode, from the variables its arguments name.
func (p *Profile) compileWrite(known map[string]bool) error {
	w := p.Write
	if w == nil {
		return nil // a read-only server
	}
	if err := p.compileCall("write", "write", &w.ToolCall, known); err != nil {
		return err
	}
	if err := compileExtracts("write", varsOf("write", known), map[string]*Extract{"version": w.Version, "replayed": w.Replayed}); err != nil {
		return err
	}
	uses := w.args.Uses
	whole := uses("content") || uses("content_lines")
	switch n := boolCount(whole, uses("old") || uses("new"), uses("append")); {
	case n == 0:
		return &Error{Field: "write.arguments", Err: errors.New("names none of {content} (or {content_lines}), {old}/{new} and {append}: the write would not carry the change")}
	case n > 1:
		return &Error{Field: "write.arguments", Err: errors.New("names more than one of {content} (or {content_lines}), {old}/{new} and {append}")}
	case whole:
		w.mode = ModeContent
	case uses("append"):
		w.mode = ModeAppend
	default:
		if !uses("old") || !uses("new") {
			return &Error{Field: "write.arguments", Err: errors.New("a patch names both {old} and {new}")}
		}
		w.mode = ModePatch
	}
	if e := w.Empty; e != nil {
		if w.mode != ModePatch {
			return &Error{Field: "write.empty", Err: errors.New("is the write of a patch to an empty document, and this write is no patch")}
		}
		if err := p.compileCall("write.empty", "write.empty", &e.ToolCall, known); err != nil {
			return err
		}
		if !e.args.Uses("content") && !e.args.Uses("content_lines") {
			return &Error{Field: "write.empty.arguments", Err: errors.New("names neither {content} nor {content_lines}: the write would not carry the text")}
		}
		if err := compileExtracts("write.empty", varsOf("write.empty", known), map[string]*Extract{"version": e.Version}); err != nil {
			return err
		}
	}
	if w.VersionCheck && !uses("expected_version") {
		return &Error{Field: "write.version_check", Err: errors.New("true, but write.arguments names no {expected_version}")}
	}
	if w.VersionCheck && p.Read.Version == nil {
		return &Error{Field: "read.version", Err: errors.New("required when write.version_check is true: a write must send the version it read")}
	}
	if w.VersionCheck && w.Version == nil {
		return &Error{Field: "write.version", Err: errors.New("required when write.version_check is true: the next write must know the version this one made")}
	}
	return nil
}

// compileOthers compiles the calls beside read and write, each with its
// extracts, and the teardown.
func (p *Profile) compileOthers(known map[string]bool) error {
	// The calls beside read and write: each compiled with its extracts.
	// extracts read the reply; each item's are read in one item of a list,
	// and have no where.
	type call struct {
		field           string
		call            *ToolCall
		extracts, items map[string]*Extract
	}
	var calls []call
	if c := p.Create; c != nil {
		calls = append(calls, call{"create", &c.ToolCall, map[string]*Extract{"id": c.ID, "version": c.Version, "replayed": c.Replayed}, nil})
	}
	if l := p.List; l != nil {
		calls = append(calls, call{"list", &l.ToolCall, map[string]*Extract{"items": l.Items},
			map[string]*Extract{"label": l.Label, "id": l.ID, "type": l.Type, "version": l.Version, "position": l.Position}})
	}
	if a := p.AddSource; a != nil {
		calls = append(calls, call{"add_source", &a.ToolCall, map[string]*Extract{"id": a.ID, "version": a.Version, "replayed": a.Replayed}, nil})
	}
	if l := p.ListSources; l != nil {
		calls = append(calls, call{"list_sources", &l.ToolCall, map[string]*Extract{"items": l.Items, "next_cursor": l.NextCursor},
			map[string]*Extract{"url": l.URL, "title": l.Title, "id": l.ID}})
	}
	for _, c := range calls {
		if err := p.compileCall(c.field, c.field, c.call, known); err != nil {
			return err
		}
		if err := compileExtracts(c.field, varsOf(c.field, known), c.extracts); err != nil {
			return err
		}
		if err := compileExtracts(c.field, nil, c.items); err != nil {
			return err
		}
	}
	for i, st := range p.Teardown {
		f := fmt.Sprintf("teardown[%d]", i)
		if err := p.compileStep(f, "teardown", st, known); err != nil {
			return err
		}
		if len(st.Bind) > 0 {
			return &Error{Field: f + ".bind", Err: errors.New("only setup.once and setup.create bind variables")}
		}
	}
	return nil
}

// variableName is what a variable's name may be: what a template can name
// between braces.
var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// define adds the variable name, declared at field, to known.
func (p *Profile) define(field, name string, known map[string]bool) error {
	switch {
	case reserved[name]:
		return &Error{Field: field, Err: fmt.Errorf("%q is a variable notesbench sets", name)}
	case !variableName.MatchString(name):
		return &Error{Field: field, Err: fmt.Errorf("%q: no template can name it (a variable's name is letters, digits and _, not starting with a digit)", name)}
	case known[name]:
		return &Error{Field: field, Err: fmt.Errorf("%q is a variable already", name)}
	}
	known[name] = true
	return nil
}

// compileStep compiles a set-up or teardown step.
func (p *Profile) compileStep(field, kind string, st *Step, known map[string]bool) error {
	return p.compileCall(field, kind, &st.ToolCall, known)
}

// compileBinds compiles the variables the step at field binds and adds
// them to known: in format 2 in setup.create too, where each document
// binds its own.
func (p *Profile) compileBinds(field string, st *Step, known map[string]bool) error {
	names := make([]string, 0, len(st.Bind))
	for name := range st.Bind {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := st.Bind[name].compile(field+".bind."+name, nil); err != nil {
			return err
		}
	}
	for _, name := range names {
		if err := p.define(field+".bind."+name, name, known); err != nil {
			return err
		}
	}
	return nil
}

// compileCall compiles the arguments of the call at field, of kind kind,
// and checks what they need of the profile's format and what they render
// at the least.
func (p *Profile) compileCall(field, kind string, c *ToolCall, known map[string]bool) error {
	if err := c.compile(field, kind, known); err != nil {
		return err
	}
	return p.checkTemplate(field+".arguments", c.args)
}

// checkTemplate checks that the template at field needs no member of a
// newer format than the profile's, and that its constants leave it within
// MaxCallBytes.
func (p *Profile) checkTemplate(field string, t *Template) error {
	if p.FormatVersion < 2 {
		switch {
		case t.filtered != "":
			return &Error{Field: t.filtered, Err: fmt.Errorf("a filter ({NAME|…}) needs format_version 2 (this profile says %d)", p.FormatVersion)}
		case t.lines != "":
			return &Error{Field: t.lines, Err: fmt.Errorf("{content_lines} needs format_version 2 (this profile says %d)", p.FormatVersion)}
		}
	}
	if n := t.MinSize(p.consts); n > MaxCallBytes {
		return &Error{Field: field, Err: fmt.Errorf("renders at least %d bytes with its variables' values, more than the %d a call may carry", n, MaxCallBytes)}
	}
	return nil
}

func boolCount(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// reserved are the variables notesbench sets, in every call that has them.
var reserved = map[string]bool{}

func init() {
	for _, vs := range callVars {
		for _, v := range vs {
			reserved[v] = true
		}
	}
}

// varsOf returns the variables the call called kind may name.
func varsOf(kind string, known map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range known {
		out[k] = true
	}
	for _, v := range callVars[kind] {
		out[v] = true
	}
	return out
}

func (c *ToolCall) compile(field, kind string, known map[string]bool) error {
	t, err := compileTemplate(field+".arguments", c.Arguments, varsOf(kind, known))
	if err != nil {
		return err
	}
	c.args = t
	return nil
}

// compileExtracts compiles the extractions of a call's reply, named field
// and each by its member; vars are the variables their where may name (nil:
// none may have one).
func compileExtracts(field string, vars map[string]bool, exs map[string]*Extract) error {
	names := make([]string, 0, len(exs))
	for n := range exs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if ex := exs[n]; ex != nil {
			if err := ex.compile(field+"."+n, vars); err != nil {
				return err
			}
		}
	}
	return nil
}
