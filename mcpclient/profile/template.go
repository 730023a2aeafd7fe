package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Value is a template variable's value: text, and, for a value that is no
// string in JSON (a number, a counter version), its JSON. An unset Value is
// absent: a member whose value is that variable alone is left out.
type Value struct {
	Text string
	JSON []byte
	Set  bool
}

// Text returns a string value.
func Text(s string) Value { return Value{Text: s, Set: true} }

// Raw returns a value with its own JSON (a number); text is how it reads
// inside a string.
func Raw(text string, js []byte) Value { return Value{Text: text, JSON: js, Set: true} }

// Vars are the values of a call's variables.
type Vars map[string]Value

// Template is a tool's arguments with variables in them, compiled once.
type Template struct {
	root node
	uses map[string]bool
	// inText holds the variables named inside a longer string, where an
	// absent value cannot drop anything.
	inText map[string]bool
}

// Uses reports whether the template names the variable.
func (t *Template) Uses(name string) bool { return t.uses[name] }

// Drops reports whether the call can be sent without the variable: the
// template names it only as whole member values, which an absent value
// leaves out ("expected_version": "{expected_version}"), never inside a
// string ("… WHERE version = {expected_version}"), where it must have one.
func (t *Template) Drops(name string) bool { return t.uses[name] && !t.inText[name] }

// node is one JSON value of a template.
type node struct {
	kind    byte   // 'l' literal, 's' string with variables, 'v' one variable, 'o' object, 'a' array
	raw     []byte // literal JSON
	parts   []part // 's'
	name    string // 'v'
	keys    [][]byte
	members []node // 'o' values, 'a' elements
}

// part is a piece of a string: literal text, or a variable.
type part struct {
	text string
	name string
}

// compileTemplate compiles the arguments of a call; field names it in
// errors, vars are the variables it may name.
func compileTemplate(field string, raw json.RawMessage, vars map[string]bool) (*Template, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	t := &Template{uses: map[string]bool{}, inText: map[string]bool{}}
	n, err := t.value(dec, field, vars)
	if err != nil {
		return nil, err
	}
	if n.kind != 'o' {
		return nil, &Error{Field: field, Err: errors.New("must be an object")}
	}
	t.root = n
	return t, nil
}

func (t *Template) value(dec *json.Decoder, field string, vars map[string]bool) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, &Error{Field: field, Err: err}
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return node{}, &Error{Field: field, Err: err}
				}
				key := kt.(string)
				k, _ := json.Marshal(key)
				m, err := t.value(dec, field+"."+key, vars)
				if err != nil {
					return node{}, err
				}
				n.keys = append(n.keys, k)
				n.members = append(n.members, m)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := node{kind: 'a'}
			for i := 0; dec.More(); i++ {
				m, err := t.value(dec, fmt.Sprintf("%s[%d]", field, i), vars)
				if err != nil {
					return node{}, err
				}
				n.members = append(n.members, m)
			}
			_, err := dec.Token()
			return n, err
		}
	case string:
		parts, err := parseParts(field, v, vars)
		if err != nil {
			return node{}, err
		}
		for _, p := range parts {
			if p.name != "" {
				t.uses[p.name] = true
			}
		}
		if len(parts) > 1 {
			for _, p := range parts {
				if p.name != "" {
					t.inText[p.name] = true
				}
			}
		}
		switch {
		case len(parts) == 1 && parts[0].name != "":
			return node{kind: 'v', name: parts[0].name}, nil
		case len(parts) == 0 || len(parts) == 1 && parts[0].name == "":
			s := ""
			if len(parts) == 1 {
				s = parts[0].text
			}
			b, _ := json.Marshal(s)
			return node{kind: 'l', raw: b}, nil
		}
		return node{kind: 's', parts: parts}, nil
	}
	b, _ := json.Marshal(tok)
	return node{kind: 'l', raw: b}, nil
}

// parseParts splits s into text and {variables}; {{ and }} are braces.
func parseParts(field, s string, vars map[string]bool) ([]part, error) {
	var parts []part
	var text strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			text.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			text.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, &Error{Field: field, Err: fmt.Errorf("%q: a { without its } (write {{ for a brace)", s)}
			}
			name := s[i+1 : i+end]
			if !vars[name] {
				return nil, &Error{Field: field, Err: fmt.Errorf("{%s} is no variable here (want %s)", name, list(vars))}
			}
			if text.Len() > 0 {
				parts = append(parts, part{text: text.String()})
				text.Reset()
			}
			parts = append(parts, part{name: name})
			i += end
		case c == '}':
			return nil, &Error{Field: field, Err: fmt.Errorf("%q: a } without its { (write }} for a brace)", s)}
		default:
			text.WriteByte(c)
		}
	}
	if text.Len() > 0 {
		parts = append(parts, part{text: text.String()})
	}
	return parts, nil
}

func list(vars map[string]bool) string {
	names := make([]string, 0, len(vars))
	for v := range vars {
		names = append(names, "{"+v+"}")
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// compileString compiles a template that renders to text, not JSON.
func compileString(field, s string, vars map[string]bool) (*Template, error) {
	parts, err := parseParts(field, s, vars)
	if err != nil {
		return nil, err
	}
	t := &Template{root: node{kind: 's', parts: parts}, uses: map[string]bool{}, inText: map[string]bool{}}
	for _, p := range parts {
		if p.name != "" {
			t.uses[p.name], t.inText[p.name] = true, true
		}
	}
	return t, nil
}

// String renders a text template; every variable it names must be set.
func (t *Template) String(vars Vars) (string, error) {
	return t.root.text(vars)
}

// text renders the parts of a text node; every variable it names must be set.
func (n *node) text(vars Vars) (string, error) {
	var b strings.Builder
	for _, p := range n.parts {
		if p.name == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := vars[p.name]
		if !ok || !v.Set {
			return "", fmt.Errorf("{%s} has no value", p.name)
		}
		b.WriteString(v.Text)
	}
	return b.String(), nil
}

// Render returns the arguments with the variables' values in them.
func (t *Template) Render(vars Vars) (json.RawMessage, error) {
	out := make([]byte, 0, 256)
	out, _, err := render(out, &t.root, vars)
	return out, err
}

// render appends n to out; dropped reports a variable alone that is absent.
func render(out []byte, n *node, vars Vars) (_ []byte, dropped bool, err error) {
	switch n.kind {
	case 'l':
		return append(out, n.raw...), false, nil
	case 'v':
		v, ok := vars[n.name]
		if !ok || !v.Set {
			return out, true, nil
		}
		if v.JSON != nil {
			return append(out, v.JSON...), false, nil
		}
		return AppendString(out, v.Text), false, nil
	case 's':
		text, err := n.text(vars)
		if err != nil {
			return out, false, err
		}
		return AppendString(out, text), false, nil
	case 'o', 'a':
		open, end := byte('{'), byte('}')
		if n.kind == 'a' {
			open, end = '[', ']'
		}
		out = append(out, open)
		first := true
		for i := range n.members {
			mark := len(out)
			if !first {
				out = append(out, ',')
			}
			if n.kind == 'o' {
				out = append(out, n.keys[i]...)
				out = append(out, ':')
			}
			var drop bool
			if out, drop, err = render(out, &n.members[i], vars); err != nil {
				return out, false, err
			}
			if drop {
				out = out[:mark]
				continue
			}
			first = false
		}
		return append(out, end), false, nil
	}
	return out, false, io.ErrUnexpectedEOF
}

// AppendString appends s to dst as a JSON string.
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
