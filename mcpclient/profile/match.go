package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/notesbench/notesbench/contract"
)

// checkFormat refuses the members of a newer format than the profile
// declares, naming the first.
func (p *Profile) checkFormat() error {
	if p.FormatVersion >= 2 {
		return nil
	}
	newer := func(field string) error {
		return &Error{Field: field, Err: fmt.Errorf("needs format_version 2 (this profile says %d)", p.FormatVersion)}
	}
	switch {
	case p.Write == nil:
		return &Error{Field: "write", Err: fmt.Errorf("required at format_version %d: a read-only profile, without write, needs format_version 2", p.FormatVersion)}
	case len(p.Errors) > 0:
		return newer("errors")
	case len(p.Setup.Session) > 0:
		return newer("setup.session")
	case len(p.Teardown) > 0:
		return newer("teardown")
	case p.Write != nil && p.Write.Empty != nil:
		return newer("write.empty")
	case p.Versions != "":
		return newer("version_format")
	case p.List != nil && p.List.Position != nil:
		return newer("list.position")
	}
	for i, st := range p.Setup.Create {
		if len(st.Bind) > 0 {
			return newer(fmt.Sprintf("setup.create[%d].bind", i))
		}
	}
	picks := p.replyExtracts()
	for _, field := range slices.Sorted(maps.Keys(picks)) {
		if e := picks[field]; e != nil && (len(e.Where) > 0 || e.Then != "") {
			return newer(field + ".where")
		} else if e != nil && e.All {
			return newer(field + ".all")
		}
	}
	if c := p.Conflict; c != nil {
		if len(c.AnyOf) > 0 {
			return newer("conflict.any_of")
		}
		if len(c.Equals) > 0 && bytes.TrimSpace(c.Equals)[0] != '"' {
			return newer("conflict.equals")
		}
	}
	return nil
}

// compileMatchers checks and compiles the conflict's matchers and the
// error classes.
func (p *Profile) compileMatchers() error {
	if v := p.Versions; v != "" {
		switch v {
		case contract.FormatCounter, contract.FormatMS, contract.FormatUSSuffix, contract.FormatOpaque:
		default:
			return &Error{Field: "version_format", Err: fmt.Errorf("%q is not one of counter, ms, us-suffix, opaque", v)}
		}
		if p.Read.Version == nil {
			return &Error{Field: "version_format", Err: errors.New("says what the server's versions are, but read.version takes none from the reply")}
		}
	}
	if c := p.Conflict; c != nil {
		switch {
		case len(c.AnyOf) > 0 && !c.Matcher.empty():
			return &Error{Field: "conflict", Err: errors.New("give one matcher or any_of, not both")}
		case len(c.AnyOf) > 0:
			for i, m := range c.AnyOf {
				if err := m.compile(fmt.Sprintf("conflict.any_of[%d]", i)); err != nil {
					return err
				}
			}
		default:
			if err := c.Matcher.compile("conflict"); err != nil {
				return err
			}
		}
		if err := compileExtracts("conflict", nil, map[string]*Extract{"current_version": c.CurrentVersion}); err != nil {
			return err
		}
	}
	for i, e := range p.Errors {
		field := fmt.Sprintf("errors[%d]", i)
		if e.Class != ClassRefused && e.Class != ClassTransient && e.Class != ClassGone {
			return &Error{Field: field + ".class", Err: fmt.Errorf("%q is not one of refused, transient, gone", e.Class)}
		}
		if err := e.Matcher.compile(field); err != nil {
			return err
		}
		if e.IsError != nil && !*e.IsError {
			p.classifiesOK = true
		}
	}
	return nil
}

// empty reports whether m names nothing to match.
func (m *Matcher) empty() bool {
	return m.IsError == nil && m.Pointer == "" && len(m.Equals) == 0 && m.Pattern == ""
}

// compile checks m, the matcher at field, and compiles it.
func (m *Matcher) compile(field string) error {
	m.field = field
	if m.Pointer == "" && m.Pattern == "" && (m.IsError == nil || !*m.IsError) {
		return &Error{Field: field, Err: errors.New("recognizes nothing: give is_error, a pointer with equals, or a pattern")}
	}
	if (m.Pointer == "") != (len(m.Equals) == 0) {
		return &Error{Field: field + ".pointer", Err: errors.New("pointer and equals go together")}
	}
	if m.Pointer != "" {
		dec := json.NewDecoder(bytes.NewReader(m.Equals))
		dec.UseNumber()
		if err := dec.Decode(&m.want); err != nil {
			return &Error{Field: field + ".equals", Err: err}
		}
		m.pointer = &Extract{Pointer: m.Pointer}
		if err := m.pointer.compile(field+".pointer", nil); err != nil {
			return err
		}
	}
	if m.Pattern != "" {
		var err error
		if m.pattern, err = compileRegexp(field+".pattern", m.Pattern); err != nil {
			return err
		}
	}
	return nil
}

// MismatchError is a matcher that can never match: its pointer finds, in a
// real reply, a value of another kind than the one it must equal (the
// number 0 where it expects the string "0"). It is a fault of the profile's.
type MismatchError struct {
	Profile, Field string
	Want, Found    string
	Reply          string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("profile %s: %s.equals: %s can never match: %s.pointer finds %s in the reply %s", e.Profile, e.Field, e.Want, e.Field, e.Found, e.Reply)
}

// Match reports whether r is a reply m recognizes. A pointer that finds a
// scalar of another kind than equals (a number where equals is a string)
// is a *MismatchError: the matcher could never match, and saying so on the
// first reply is better than never recognizing a conflict.
func (m *Matcher) Match(profile string, r *Reply) (bool, error) {
	if (m.IsError == nil || *m.IsError) && !r.IsError {
		return false, nil
	}
	if m.pointer != nil {
		v, ok := m.pointer.Value(r)
		if !ok {
			return false, nil
		}
		if kv, kw := kindOf(v), kindOf(m.want); kv != kw && scalar(kv) && scalar(kw) {
			return false, &MismatchError{Profile: profile, Field: m.field, Want: describeValue(m.want), Found: describeValue(v), Reply: r.Short()}
		}
		if !sameJSON(v, m.want) {
			return false, nil
		}
	}
	if m.pattern != nil && !m.pattern.re.MatchString(r.plain()) {
		return false, nil
	}
	return true, nil
}

// Matches reports whether r is a conflict as c recognizes it: its matcher,
// or any of its matchers.
func (c *Conflict) Matches(profile string, r *Reply) (bool, error) {
	if c == nil {
		return false, nil
	}
	if len(c.AnyOf) == 0 {
		return c.Matcher.Match(profile, r)
	}
	for _, m := range c.AnyOf {
		if ok, err := m.Match(profile, r); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// Classify returns the class of the first error class that recognizes r,
// "" when none does.
func (p *Profile) Classify(r *Reply) (string, error) {
	for _, e := range p.Errors {
		ok, err := e.Match(p.Name, r)
		if err != nil || ok {
			return e.Class, err
		}
	}
	return "", nil
}

// ClassifiesOK reports whether an error class matches replies that are
// not marked as errors (is_error false).
func (p *Profile) ClassifiesOK() bool { return p.classifiesOK }

// VersionFormat says what the server's versions are: what the profile
// declares, else opaque when the read takes a version from the reply and
// digest (notesbench's own) when it does not.
func (p *Profile) VersionFormat() contract.VersionFormat {
	switch {
	case p.Versions != "":
		return p.Versions
	case p.Read.Version != nil:
		return contract.FormatOpaque
	}
	return contract.FormatDigest
}

// plain is the reply's text, or its structured content as JSON when it has
// no text: what a pattern matches.
func (r *Reply) plain() string {
	if r.Text == "" && r.Structured != nil {
		b, _ := json.Marshal(r.Structured)
		return string(b)
	}
	return r.Text
}

// kindOf names the JSON kind of a decoded value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, json.Number:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

func scalar(kind string) bool { return kind == "string" || kind == "number" || kind == "boolean" }

// describeValue writes a value for an error message: its kind and JSON,
// cut short.
func describeValue(v any) string {
	b, _ := json.Marshal(v)
	js := string(b)
	if len(js) > 40 {
		js = js[:40] + "…"
	}
	return fmt.Sprintf("the %s %s", kindOf(v), js)
}

// sameJSON reports whether two decoded JSON values are equal as JSON
// values: numbers by value (0 equals 0.0), objects by member, arrays by
// element.
func sameJSON(a, b any) bool {
	if kindOf(a) != kindOf(b) {
		return false
	}
	switch x := a.(type) {
	case float64, json.Number:
		return sameNumber(x, b)
	case []any:
		y := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y := b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// sameNumber compares two JSON numbers exactly.
func sameNumber(a, b any) bool {
	ra, oka := ratOf(a)
	rb, okb := ratOf(b)
	return oka && okb && ra.Cmp(rb) == 0
}

func ratOf(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case float64:
		q := new(big.Rat).SetFloat64(x)
		return q, q != nil
	case json.Number:
		return new(big.Rat).SetString(x.String())
	}
	return nil, false
}

// replyExtracts are the extractions that read a whole reply, by field: those
// a where may pick an item in.
func (p *Profile) replyExtracts() map[string]*Extract {
	out := map[string]*Extract{}
	if p.Read != nil {
		out["read.content"], out["read.version"] = p.Read.Content, p.Read.Version
	}
	if w := p.Write; w != nil {
		out["write.version"], out["write.replayed"] = w.Version, w.Replayed
	}
	if c := p.Create; c != nil {
		out["create.id"], out["create.version"], out["create.replayed"] = c.ID, c.Version, c.Replayed
	}
	if l := p.List; l != nil {
		out["list.items"] = l.Items
	}
	if a := p.AddSource; a != nil {
		out["add_source.id"], out["add_source.version"], out["add_source.replayed"] = a.ID, a.Version, a.Replayed
	}
	if l := p.ListSources; l != nil {
		out["list_sources.items"], out["list_sources.next_cursor"] = l.Items, l.NextCursor
	}
	return out
}
