package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"

	"github.com/notesbench/notesbench/contract"
)

// VarValue is a template variable's value: text, and, for a value that is no
// string in JSON (a number, a counter version), its JSON. An unset VarValue is
// absent: a member whose value is that variable alone is left out.
type VarValue struct {
	Text string
	JSON []byte
	Set  bool
}

// Text returns a string value.
func Text(s string) VarValue { return VarValue{Text: s, Set: true} }

// Raw returns a value with its own JSON (a number); text is how it reads
// inside a string.
func Raw(text string, js []byte) VarValue { return VarValue{Text: text, JSON: js, Set: true} }

// Vars are the values of a call's variables.
type Vars map[string]VarValue

// Template is a tool's arguments with variables in them, compiled once.
type Template struct {
	root node
	uses map[string]bool
	// inText holds the variables named inside a longer string, where an
	// absent value cannot drop anything.
	inText map[string]bool
	// filtered is the field of the first variable named with a filter
	// ({content|sql}), a member of format 2; lines the field of the first
	// {content_lines}.
	filtered, lines string
}

// MaxCallBytes is the most a call's rendered arguments may be: the 4 MiB a
// tool call may carry (contract.MaxArgsBytes). A template that would render
// more is refused when the profile is read, where its constants say so, and
// otherwise when it is rendered, before the call is sent.
const MaxCallBytes = contract.MaxArgsBytes

// errTooLarge is a rendering that passed MaxCallBytes.
var errTooLarge = fmt.Errorf("renders more than the %d bytes a call may carry", MaxCallBytes)

// The filters a variable may be named with, applied left to right:
// {NAME|json} is its text escaped for inside a JSON string, without the
// quotes; {NAME|sql} is its text with each single quote doubled, for
// inside an SQL string literal; {NAME|inc} is the integer it is, plus one;
// {NAME|slug} its text with every character but ASCII letters, digits, -, _
// and . made a -.
var filters = map[string]func(VarValue) (VarValue, error){
	"json": func(v VarValue) (VarValue, error) {
		b := AppendString(nil, v.Text)
		return Text(string(b[1 : len(b)-1])), nil
	},
	"sql": func(v VarValue) (VarValue, error) {
		return Text(strings.ReplaceAll(v.Text, "'", "''")), nil
	},
	// slug keeps ASCII letters, digits, '-', '_' and '.', and makes every
	// other character a '-': a label as a file's name on a server that
	// refuses spaces.
	"slug": func(v VarValue) (VarValue, error) {
		return Text(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
				return r
			}
			return '-'
		}, v.Text)), nil
	},
	"inc": func(v VarValue) (VarValue, error) {
		n, ok := new(big.Int).SetString(v.Text, 10)
		if !ok {
			return VarValue{}, fmt.Errorf("%s is not an integer", Cut(v.Text, 40))
		}
		s := n.Add(n, big.NewInt(1)).String()
		return Raw(s, []byte(s)), nil
	},
}

// filterNames lists the filters, for an error message.
const filterNames = "json, sql, inc, slug"

// Uses reports whether the template names the variable.
func (t *Template) Uses(name string) bool { return t.uses[name] }

// Drops reports whether the call can be sent without the variable: the
// template names it only as whole member values, which an absent value
// leaves out ("expected_version": "{expected_version}"), never inside a
// string ("… WHERE version = {expected_version}") or as an element of an
// array (an SQL statement's values), where it must have one.
func (t *Template) Drops(name string) bool { return t.uses[name] && !t.inText[name] }

// node is one JSON value of a template.
type node struct {
	kind    byte   // 'l' literal, 's' string with variables, 'v' one variable, 'o' object, 'a' array
	raw     []byte // literal JSON
	parts   []part // 's'
	name    part   // 'v'
	keys    [][]byte
	members []node // 'o' values, 'a' elements
}

// part is a piece of a string: literal text, or a variable and the filters
// it is named with.
type part struct {
	text    string
	name    string
	filters []string
}

// value returns the value of the variable p names, its filters applied;
// an absent variable stays absent.
func (p *part) value(vars Vars) (VarValue, error) {
	v, ok := vars[p.name]
	if !ok || !v.Set {
		return VarValue{}, nil
	}
	for _, f := range p.filters {
		var err error
		if v, err = filters[f](v); err != nil {
			return VarValue{}, fmt.Errorf("{%s|%s}: %v", p.name, strings.Join(p.filters, "|"), err)
		}
	}
	return v, nil
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
				if m.kind == 'v' {
					// Leaving an element out moves the ones after it (an
					// SQL statement's bound values): no call without it.
					t.inText[m.name.name] = true
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
		t.note(field, parts)
		if len(parts) > 1 {
			for _, p := range parts {
				if p.name != "" {
					t.inText[p.name] = true
				}
			}
		}
		switch {
		case len(parts) == 1 && parts[0].name != "":
			return node{kind: 'v', name: parts[0]}, nil
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

// note records the variables parts, the string at field, name.
func (t *Template) note(field string, parts []part) {
	for _, p := range parts {
		if p.name == "" {
			continue
		}
		t.uses[p.name] = true
		if len(p.filters) > 0 && t.filtered == "" {
			t.filtered = field
		}
		if p.name == "content_lines" && t.lines == "" {
			t.lines = field
		}
	}
}

// parseParts splits s into text and {variables}, each with its filters
// ({name|sql}); {{ and }} are braces.
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
			ref := s[i+1 : i+end]
			name, rest, _ := strings.Cut(ref, "|")
			if !vars[name] {
				return nil, &Error{Field: field, Err: fmt.Errorf("{%s} is no variable here (want %s)", name, list(vars))}
			}
			var fs []string
			if rest != "" || strings.Contains(ref, "|") {
				fs = strings.Split(rest, "|")
				for _, f := range fs {
					if filters[f] == nil {
						return nil, &Error{Field: field, Err: fmt.Errorf("{%s}: %q is no filter (want %s)", ref, f, filterNames)}
					}
				}
			}
			if text.Len() > 0 {
				parts = append(parts, part{text: text.String()})
				text.Reset()
			}
			parts = append(parts, part{name: name, filters: fs})
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
	t.note(field, parts)
	for _, p := range parts {
		if p.name != "" {
			t.inText[p.name] = true
		}
	}
	return t, nil
}

// String renders a text template; every variable it names must be set.
func (t *Template) String(vars Vars) (string, error) {
	return t.root.text(vars)
}

// text renders the parts of a text node; every variable it names must be
// set. It stops once the text passes MaxCallBytes.
func (n *node) text(vars Vars) (string, error) {
	var b strings.Builder
	for i := range n.parts {
		p := &n.parts[i]
		if p.name == "" {
			b.WriteString(p.text)
		} else {
			v, err := p.value(vars)
			if err != nil {
				return "", err
			}
			if !v.Set {
				return "", fmt.Errorf("{%s} has no value", p.name)
			}
			b.WriteString(v.Text)
		}
		if b.Len() > MaxCallBytes {
			return "", errTooLarge
		}
	}
	return b.String(), nil
}

// Render returns the arguments with the variables' values in them; a
// rendering that would pass MaxCallBytes stops there, an error.
func (t *Template) Render(vars Vars) (json.RawMessage, error) {
	out := make([]byte, 0, 256)
	out, _, err := render(out, &t.root, vars)
	if err == nil && len(out) > MaxCallBytes {
		err = errTooLarge
	}
	return out, err
}

// MinSize returns the fewest bytes the template renders to when the
// variables in consts have their values and every other one is as short as
// a value can be: its literal text, and each constant as often as it is
// named. A profile whose constants alone take a call past MaxCallBytes can
// never make it.
func (t *Template) MinSize(consts Vars) int64 {
	var size func(n *node) int64
	size = func(n *node) int64 {
		switch n.kind {
		case 'l':
			return int64(len(n.raw))
		case 'v':
			if v, ok := consts[n.name.name]; ok && len(n.name.filters) == 0 {
				return int64(len(v.Text)) + 2
			}
			return 0
		case 's':
			total := int64(2)
			for _, p := range n.parts {
				if p.name == "" {
					total += int64(len(p.text))
				} else if v, ok := consts[p.name]; ok {
					total += int64(len(v.Text))
				}
			}
			return total
		}
		total := int64(2)
		for i := range n.members {
			total += size(&n.members[i]) + 1
			if n.kind == 'o' {
				total += int64(len(n.keys[i])) + 1
			}
		}
		return total
	}
	return size(&t.root)
}

// render appends n to out; dropped reports a variable alone that is absent.
func render(out []byte, n *node, vars Vars) (_ []byte, dropped bool, err error) {
	switch n.kind {
	case 'l':
		if len(out)+len(n.raw) > MaxCallBytes {
			return out, false, errTooLarge
		}
		return append(out, n.raw...), false, nil
	case 'v':
		v, err := n.name.value(vars)
		if err != nil {
			return out, false, err
		}
		if !v.Set {
			return out, true, nil
		}
		if len(out)+len(v.Text)+len(v.JSON) > MaxCallBytes {
			return out, false, errTooLarge
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
		if len(out)+len(text) > MaxCallBytes {
			return out, false, errTooLarge
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
