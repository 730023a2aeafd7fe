package profile

import (
	"bytes"
	"embed"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// FormatVersion is the newest format_version this notesbench reads; every
// older one reads too. A profile that uses a member of a newer format than
// the one it declares is refused, naming the member.
const FormatVersion = 2

//go:embed schema.json
var schemaJSON []byte

// Schema returns the profile format's JSON Schema.
func Schema() []byte { return slices.Clone(schemaJSON) }

//go:embed builtin/*.json
var builtinFS embed.FS

// Profile is a profile as its file declares it, checked and compiled. Build
// one with Parse or Load.
type Profile struct {
	FormatVersion int               `json:"format_version"`
	Name          string            `json:"name"`
	Description   string            `json:"description,omitempty"`
	Server        string            `json:"server,omitempty"`
	Caveat        string            `json:"caveat,omitempty"`
	Variables     map[string]string `json:"variables,omitempty"`
	Setup         Setup             `json:"setup"`
	Read          *Read             `json:"read"`
	Write         *WriteMapping     `json:"write"`
	Conflict      *Conflict         `json:"conflict,omitempty"`
	Create        *CreateMapping    `json:"create,omitempty"`
	List          *List             `json:"list,omitempty"`
	AddSource     *AddSource        `json:"add_source,omitempty"`
	ListSources   *ListSources      `json:"list_sources,omitempty"`

	// Teardown are the calls made for each document after its run (format
	// 2): delete the file, the row, the entity. --keep skips them.
	Teardown []*Step `json:"teardown,omitempty"`

	// Errors classify the error replies that are no conflict (format 2): a
	// refusal (the server changed nothing) or a transient error (try the
	// same call again); an error reply none of them matches has an outcome
	// nobody knows.
	Errors []*ErrorClass `json:"errors,omitempty"`
	// Versions says what the server's versions are (format 2): counter, ms,
	// us-suffix or opaque (an etag, a revision). Empty: opaque when the
	// read extracts a version, digest (notesbench's own) when it does not.
	Versions contract.VersionFormat `json:"version_format,omitempty"`

	// Source names where the profile came from: its file, or "built-in".
	Source string `json:"-"`

	consts       Vars // the variables' values
	classifiesOK bool // an error class matches replies not marked as errors
}

// ToolCall is a tool and its arguments, a template.
type ToolCall struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	args      *Template
}

// Args returns the compiled template of the call's arguments.
func (c *ToolCall) Args() *Template { return c.args }

// Step is a set-up call, and the variables it takes from its reply.
type Step struct {
	ToolCall
	Bind map[string]*Extract `json:"bind,omitempty"`
}

// Setup is how a run gets a fresh document: the calls made once, before
// any run, the document's name, the calls that make each document fresh
// (which, in format 2, may bind variables of that document's), and (format
// 2) the calls each session makes once before its first (an SQL server's
// PRAGMA busy_timeout).
type Setup struct {
	Once     []*Step `json:"once,omitempty"`
	Session  []*Step `json:"session,omitempty"`
	Document string  `json:"document"`
	Create   []*Step `json:"create,omitempty"`
	document *Template
}

// DocumentName renders the name of a document.
func (s *Setup) DocumentName(vars Vars) (string, error) { return s.document.String(vars) }

// Read is how the document is read.
type Read struct {
	ToolCall
	Content *Extract `json:"content"`
	Version *Extract `json:"version,omitempty"`
}

// WriteMapping is how the document is written.
type WriteMapping struct {
	ToolCall
	VersionCheck bool     `json:"version_check"`
	Version      *Extract `json:"version,omitempty"`
	Replayed     *Extract `json:"replayed,omitempty"`
	// Empty is the call a patch write makes to an empty document, which
	// has no line to anchor a patch on (format 2): it names {content}, the
	// whole text. Without it the patch is sent with {old} empty.
	Empty *WriteEmpty `json:"empty,omitempty"`
	mode  WriteMode
}

// WriteEmpty is the write of a whole text to an empty document, and where
// its reply holds the version after it (default: where the write's does).
type WriteEmpty struct {
	ToolCall
	Version *Extract `json:"version,omitempty"`
}

// Mode returns how the write states the change.
func (w *WriteMapping) Mode() WriteMode { return w.mode }

// WriteMode is how a write states the change: the whole content, a patch, or
// the text added at the end.
type WriteMode string

// The write modes, by the variable the write's arguments name.
const (
	ModeContent WriteMode = "content"
	ModePatch   WriteMode = "patch"
	ModeAppend  WriteMode = "append"
)

// Conflict is how a refusal for a stale version is recognized: one
// matcher, or (format 2) any of several, and where the reply says the
// current version.
type Conflict struct {
	Matcher
	AnyOf          []*Matcher `json:"any_of,omitempty"`
	CurrentVersion *Extract   `json:"current_version,omitempty"`
}

// Matcher recognizes a kind of reply: is_error (default true), a pointer
// whose value equals a JSON value, and a pattern the reply's text matches;
// every one given must hold.
type Matcher struct {
	IsError *bool           `json:"is_error,omitempty"`
	Pointer string          `json:"pointer,omitempty"`
	Equals  json.RawMessage `json:"equals,omitempty"`
	Pattern string          `json:"pattern,omitempty"`

	field   string
	want    any // Equals, decoded (numbers as json.Number)
	pattern *regexpCache
	pointer *Extract
}

// The classes of an error reply that is no conflict.
const (
	// ClassRefused: the server refused and changed nothing; a Fail.
	ClassRefused = "refused"
	// ClassTransient: the server could not take the call now and changed
	// nothing (database is locked); the same call is tried again, a few
	// times.
	ClassTransient = "transient"
	// ClassGone: the server says the document is gone (ENOENT, "entity
	// not found"); it changed nothing, and the document, or the store, is
	// lost: a Fail the audit counts as a store destroyed when no fault
	// came before it.
	ClassGone = "gone"
)

// ErrorClass is a matcher of error replies and what they mean.
type ErrorClass struct {
	Matcher
	Class string `json:"class"`
}

// CreateMapping is how an item is created with a key: the call, and where its
// reply holds the item's id, the version after it, and whether the reply
// was a replay of an earlier one.
type CreateMapping struct {
	ToolCall
	ID       *Extract `json:"id,omitempty"`
	Version  *Extract `json:"version,omitempty"`
	Replayed *Extract `json:"replayed,omitempty"`
}

// List is how the items created are listed.
type List struct {
	ToolCall
	Items   *Extract `json:"items"`
	Label   *Extract `json:"label"`
	ID      *Extract `json:"id,omitempty"`
	Type    *Extract `json:"type,omitempty"`
	Version *Extract `json:"version,omitempty"`
	// Position is where an item stands in the listing (format 2); empty:
	// its place in the array.
	Position *Extract `json:"position,omitempty"`
}

// AddSource is how a source is added with a key: a Create whose item is a
// source.
type AddSource = CreateMapping

// ListSources is how the sources are listed.
type ListSources struct {
	ToolCall
	Items      *Extract `json:"items"`
	URL        *Extract `json:"url"`
	Title      *Extract `json:"title,omitempty"`
	ID         *Extract `json:"id,omitempty"`
	NextCursor *Extract `json:"next_cursor,omitempty"`
}

// Error is a profile that cannot be used: the file (or built-in name), the
// profile field at fault, as a path such as write.arguments.content, and
// what is wrong with it.
type Error struct {
	Source string
	Field  string
	Err    error
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("profile %s: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("profile %s: %s: %v", e.Source, e.Field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// The variables each call may name beyond the common ones (document, run,
// note, and those the profile defines or binds).
var callVars = map[string][]string{
	"setup.document": {"run", "note"},
	"setup.create":   {"document", "run", "note"},
	"setup.once":     {},
	"setup.session":  {},
	"teardown":       {"document", "run", "note"},
	"read":           {"document", "run", "note"},
	"write":          {"document", "run", "note", "content", "content_lines", "old", "new", "append", "expected_version", "idempotency_key"},
	"write.empty":    {"document", "run", "note", "content", "content_lines", "expected_version", "idempotency_key"},
	"create":         {"document", "run", "note", "label", "tab_type", "expected_version", "idempotency_key"},
	"list":           {"document", "run", "note"},
	"add_source":     {"document", "run", "note", "url", "title", "expected_version", "idempotency_key"},
	"list_sources":   {"document", "run", "note", "limit", "cursor"},
}

// maxProfileSize bounds a profile file.
const maxProfileSize = 1 << 20

// Builtins returns the names of the built-in profiles, sorted.
func Builtins() []string {
	entries, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// BuiltinJSON returns the file of the built-in profile called name, as it
// is embedded: a start for a profile of one's own.
func BuiltinJSON(name string) ([]byte, error) {
	data, err := builtinFS.ReadFile(path.Join("builtin", name+".json"))
	if err != nil || strings.ContainsAny(name, `/\`) {
		return nil, &Error{Source: name, Err: fmt.Errorf("no such built-in profile (built-in: %s)", strings.Join(Builtins(), ", "))}
	}
	return data, nil
}

// Builtin returns the built-in profile called name.
func Builtin(name string) (*Profile, error) {
	data, err := builtinFS.ReadFile(path.Join("builtin", name+".json"))
	if err != nil {
		return nil, &Error{Source: name, Err: fmt.Errorf("no such built-in profile (built-in: %s)", strings.Join(Builtins(), ", "))}
	}
	p, err := Parse(data, name)
	if err != nil {
		return nil, err
	}
	p.Source = "built-in " + name
	return p, nil
}

// Load returns the profile nameOrFile names: a built-in profile's name, or a
// file (a name with a slash or ending in .json is always a file).
func Load(nameOrFile string) (*Profile, error) {
	if nameOrFile == "" {
		return nil, &Error{Source: `""`, Err: fmt.Errorf("an empty name: give a profile file or a built-in profile (%s)", strings.Join(Builtins(), ", "))}
	}
	if !strings.ContainsAny(nameOrFile, `/\`) && !strings.HasSuffix(nameOrFile, ".json") {
		if slices.Contains(Builtins(), nameOrFile) {
			return Builtin(nameOrFile)
		}
		if _, err := os.Stat(nameOrFile); err != nil {
			return Builtin(nameOrFile) // says which built-ins there are
		}
	}
	st, err := os.Stat(nameOrFile)
	if err != nil {
		return nil, &Error{Source: nameOrFile, Err: errors.Unwrap(err)}
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Source: nameOrFile, Err: errors.New("not a regular file")}
	}
	if st.Size() > maxProfileSize {
		return nil, &Error{Source: nameOrFile, Err: fmt.Errorf("%d bytes: a profile is at most %d", st.Size(), maxProfileSize)}
	}
	data, err := os.ReadFile(nameOrFile)
	if err != nil {
		return nil, &Error{Source: nameOrFile, Err: errors.Unwrap(err)}
	}
	return Parse(data, nameOrFile)
}

var compiled = sync.OnceValues(func() (*contract.Schema, error) {
	return contract.CompileSchema("profile", schemaJSON)
})

// Parse reads a profile from data, named source in errors: it must be valid
// against the format's JSON Schema (no member the format does not name), and
// every template must name only variables its call has. Its errors are
// *Error, naming the field.
func Parse(data []byte, source string) (*Profile, error) {
	s, err := compiled()
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, &Error{Source: source, Err: fmt.Errorf("not JSON: %v", err)}
	}
	var head struct {
		FormatVersion *int `json:"format_version"`
	}
	if json.Unmarshal(data, &head) == nil && head.FormatVersion != nil && (*head.FormatVersion < 1 || *head.FormatVersion > FormatVersion) {
		return nil, &Error{Source: source, Field: "format_version", Err: fmt.Errorf("%d is not a format this notesbench reads (want 1 to %d)", *head.FormatVersion, FormatVersion)}
	}
	if err := duplicateKey(data); err != nil {
		return nil, &Error{Source: source, Field: err.Field, Err: err.Err}
	}
	violations, err := s.Validate(data)
	if err != nil {
		return nil, &Error{Source: source, Err: err}
	}
	if len(violations) > 0 {
		return nil, violationError(source, violations)
	}
	p := &Profile{Source: source}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, &Error{Source: source, Err: err}
	}
	if err := p.compile(); err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			pe.Source = source
			return nil, pe
		}
		return nil, &Error{Source: source, Err: err}
	}
	return p, nil
}

// violationError names the first violation's field as a dotted path; an
// unknown member comes first, since it says most.
func violationError(source string, vs []contract.Violation) error {
	v := vs[0]
	for _, w := range vs {
		if w.Keyword == "additionalProperties" {
			v = w
			break
		}
	}
	var msg string
	switch v.Keyword {
	case "additionalProperties":
		msg = "unknown field"
	case "required":
		msg = "required"
	case "type":
		msg = "must be " + wantOf(v)
	case "enum":
		msg = "not one of the values it takes " + wantOf(v)
	default:
		msg = strings.TrimSpace(v.Keyword + " " + wantOf(v))
	}
	return &Error{Source: source, Field: dotted(v.Path), Err: errors.New(msg)}
}

// wantOf is what a violation wants, in the profile's words: its Want,
// without the brackets and "want" of an enum's.
func wantOf(v contract.Violation) string {
	w := v.Want
	if strings.HasPrefix(w, "(") && strings.HasSuffix(w, ")") {
		w = w[1 : len(w)-1]
	}
	return strings.TrimPrefix(w, "want ")
}

// dotted turns a JSON Pointer into a field path: /read/arguments/0 is
// read.arguments[0].
func dotted(ptr string) string {
	if ptr == "" || ptr == "/" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if isIndex(tok) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Tools returns the tools the profile calls, each once, in the order of
// the file: set-up first.
func (p *Profile) Tools() []string {
	var out []string
	add := func(t string) {
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, s := range p.Setup.Once {
		add(s.Tool)
	}
	for _, s := range p.Setup.Session {
		add(s.Tool)
	}
	for _, s := range p.Setup.Create {
		add(s.Tool)
	}
	for _, c := range p.calls() {
		add(c.Tool)
	}
	if p.Write != nil && p.Write.Empty != nil {
		add(p.Write.Empty.Tool)
	}
	for _, s := range p.Teardown {
		add(s.Tool)
	}
	return out
}

// ServerTools returns, for each of the contract's tools the profile maps,
// the server's tool that stands for it.
func (p *Profile) ServerTools() map[string]string {
	out := map[string]string{}
	for _, m := range p.mapped() {
		if m.call.Tool != "" {
			out[m.tool] = m.call.Tool
		}
	}
	return out
}

func (p *Profile) calls() []*ToolCall {
	var out []*ToolCall
	for _, m := range p.mapped() {
		out = append(out, m.call)
	}
	return out
}

// mapped is each of the profile's operations with the contract tool it
// stands for, in the order of the file.
func (p *Profile) mapped() []mappedCall {
	var out []mappedCall
	add := func(tool string, present bool, call func() *ToolCall) {
		if present {
			out = append(out, mappedCall{tool, call()})
		}
	}
	add(contract.ToolReadNoteTab, p.Read != nil, func() *ToolCall { return &p.Read.ToolCall })
	add(contract.ToolEditNoteTab, p.Write != nil, func() *ToolCall { return &p.Write.ToolCall })
	add(contract.ToolCreateNoteTab, p.Create != nil, func() *ToolCall { return &p.Create.ToolCall })
	add(contract.ToolListNoteTabs, p.List != nil, func() *ToolCall { return &p.List.ToolCall })
	add(contract.ToolAddNoteSource, p.AddSource != nil, func() *ToolCall { return &p.AddSource.ToolCall })
	add(contract.ToolListNoteAttachments, p.ListSources != nil, func() *ToolCall { return &p.ListSources.ToolCall })
	return out
}

// mappedCall is an operation of a profile and the contract tool it stands
// for.
type mappedCall struct {
	tool string
	call *ToolCall
}

// Capability returns the section of the profile a capability needs, and
// its tools; no section means the profile does not map it.
func (p *Profile) Capability(c contract.Capability) (section string, tools []string) {
	switch c {
	case contract.CapRead:
		return "read", []string{p.Read.Tool}
	case contract.CapWrite:
		if p.Write != nil {
			return "write", []string{p.Write.Tool}
		}
		return "write", nil
	case contract.CapCreate:
		if p.Create != nil {
			return "create", []string{p.Create.Tool}
		}
		return "create", nil
	case contract.CapList:
		if p.List != nil {
			return "list", []string{p.List.Tool}
		}
		return "list", nil
	case contract.CapAddSource:
		if p.AddSource != nil {
			return "add_source", []string{p.AddSource.Tool}
		}
		return "add_source", nil
	case contract.CapListSources:
		if p.ListSources != nil {
			return "list_sources", []string{p.ListSources.Tool}
		}
		return "list_sources", nil
	}
	return string(c), nil
}
