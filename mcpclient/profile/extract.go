package profile

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// Reply is a tool's result as extractions read it: whether it is an error,
// its structuredContent (decoded) and its text contents, joined by
// newlines.
type Reply struct {
	IsError    bool
	Structured any
	Text       string

	once   sync.Once
	asJSON any // the text decoded as JSON, or nil
}

// textJSON returns the reply's text decoded as JSON, nil when it is none.
func (r *Reply) textJSON() any {
	r.once.Do(func() {
		t := strings.TrimSpace(r.Text)
		if t == "" || (t[0] != '{' && t[0] != '[') {
			return
		}
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			r.asJSON = v
		}
	})
	return r.asJSON
}

// Short returns the reply cut short, for an error message.
func (r *Reply) Short() string {
	s := r.Text
	if r.Structured != nil {
		if b, err := json.Marshal(r.Structured); err == nil {
			s = string(b)
		}
	}
	return Cut(s, 160)
}

// Cut returns s, at most n bytes of it, marked when cut.
func Cut(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n]) + "…"
}

// Extract says where a value is in a reply.
type Extract struct {
	From    string `json:"from,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	Lines   bool   `json:"lines,omitempty"`
	Decode  string `json:"decode,omitempty"`

	field   string
	tokens  []string
	pattern *regexpCache
}

// regexpCache is a compiled regular expression.
type regexpCache struct{ re *regexp.Regexp }

func compileRegexp(field, s string) (*regexpCache, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, &Error{Field: field, Err: fmt.Errorf("not a regular expression: %v", err)}
	}
	return &regexpCache{re: re}, nil
}

func (e *Extract) compile(field string) error {
	e.field = field
	if e.From == "text" && e.Pointer != "" {
		return &Error{Field: field + ".pointer", Err: errors.New("plain text has no pointer: use a pattern")}
	}
	if e.Pointer != "" {
		for _, tok := range strings.Split(e.Pointer[1:], "/") {
			e.tokens = append(e.tokens, strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
		}
	}
	if e.Pattern != "" {
		var err error
		if e.pattern, err = compileRegexp(field+".pattern", e.Pattern); err != nil {
			return err
		}
	}
	return nil
}

// Field returns the profile field the extraction is.
func (e *Extract) Field() string { return e.field }

// ExtractError is an extraction that found nothing in a real reply: the
// profile field, what it looked for and the reply, cut short.
type ExtractError struct {
	Profile string
	Field   string
	Want    string
	Reply   string
}

func (e *ExtractError) Error() string {
	return fmt.Sprintf("profile %s: %s: %s found nothing in the reply %s", e.Profile, e.Field, e.Want, e.Reply)
}

// what says what the extraction looks for.
func (e *Extract) what() string {
	var parts []string
	if e.Pointer != "" {
		parts = append(parts, "pointer "+e.Pointer)
	}
	if e.Pattern != "" {
		parts = append(parts, "pattern "+e.Pattern)
	}
	if len(parts) == 0 {
		return "the whole reply"
	}
	return strings.Join(parts, " and ")
}

// Value returns the value the extraction finds in r, and false when it
// finds none.
func (e *Extract) Value(r *Reply) (any, bool) {
	var doc any
	switch e.From {
	case "structured":
		doc = r.Structured
	case "text_json":
		doc = r.textJSON()
	case "text":
		doc = r.Text
	default:
		doc = r.Structured
		if doc == nil {
			doc = r.textJSON()
		}
		if doc == nil && e.Pointer == "" {
			doc = r.Text
		}
	}
	if doc == nil {
		return nil, false
	}
	return e.apply(doc)
}

// apply finds the value in doc: the pointer, the lines, the decoding and
// the pattern.
func (e *Extract) apply(doc any) (any, bool) {
	v := doc
	for _, tok := range e.tokens {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	if e.Lines {
		items, ok := v.([]any)
		if !ok {
			return nil, false
		}
		lines := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, false
			}
			lines[i] = s
		}
		v = strings.Join(lines, "\n")
	}
	if e.Decode == "base64" {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		b, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s))
		if err != nil {
			return nil, false
		}
		v = string(b)
	}
	if e.pattern != nil {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		m := e.pattern.re.FindStringSubmatch(s)
		if m == nil {
			return nil, false
		}
		if len(m) > 1 {
			return m[1], true
		}
		return m[0], true
	}
	return v, v != nil
}

// String returns the string the extraction finds in r.
func (e *Extract) String(profile string, r *Reply) (string, error) {
	v, ok := e.Value(r)
	if s, isStr := v.(string); ok && isStr {
		return s, nil
	}
	return "", e.fail(profile, "a string at "+e.what(), r)
}

// Version returns the version the extraction finds in r: a string, or a
// number (a counter).
func (e *Extract) Version(profile string, r *Reply) (contract.Version, error) {
	v, ok := e.Value(r)
	if ok {
		if vv, ok := versionOf(v); ok {
			return vv, nil
		}
	}
	return "", e.fail(profile, "a version at "+e.what(), r)
}

func versionOf(v any) (contract.Version, bool) {
	switch x := v.(type) {
	case string:
		return contract.Version(x), x != ""
	case float64:
		return contract.Version(strconv.FormatFloat(x, 'f', -1, 64)), true
	case json.Number:
		return contract.Version(x.String()), true
	}
	return "", false
}

// Bool returns the boolean the extraction finds in r; absent is false.
func (e *Extract) Bool(r *Reply) bool {
	v, _ := e.Value(r)
	b, _ := v.(bool)
	return b
}

// Items returns the array the extraction finds in r.
func (e *Extract) Items(profile string, r *Reply) ([]any, error) {
	v, ok := e.Value(r)
	if items, isArr := v.([]any); ok && isArr {
		return items, nil
	}
	return nil, e.fail(profile, "an array at "+e.what(), r)
}

// ItemString returns the string the extraction finds in one item of a
// list; false when it finds none.
func (e *Extract) ItemString(item any) (string, bool) {
	v, ok := e.apply(item)
	if !ok {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case float64, json.Number:
		vv, _ := versionOf(x)
		return string(vv), true
	}
	return "", false
}

func (e *Extract) fail(profile, want string, r *Reply) error {
	return &ExtractError{Profile: profile, Field: e.field, Want: want, Reply: r.Short()}
}

// Matches reports whether a reply is a conflict as c recognizes it.
func (c *Conflict) Matches(r *Reply) bool {
	if c == nil {
		return false
	}
	if (c.IsError == nil || *c.IsError) && !r.IsError {
		return false
	}
	if c.pointer != nil {
		v, ok := c.pointer.Value(r)
		if s, isStr := v.(string); !ok || !isStr || s != c.Equals {
			return false
		}
	}
	if c.pattern != nil {
		text := r.Text
		if text == "" && r.Structured != nil {
			b, _ := json.Marshal(r.Structured)
			text = string(b)
		}
		if !c.pattern.re.MatchString(text) {
			return false
		}
	}
	return true
}
