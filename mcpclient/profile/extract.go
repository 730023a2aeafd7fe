package profile

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
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
	// Vars are the variables of the call it replies to: what an
	// extraction's where renders.
	Vars Vars

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
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber() // a number keeps its digits: a version of 19 digits stays itself
		var v any
		if dec.Decode(&v) == nil && !dec.More() {
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

// Extract says where a value is in a reply. Where picks, from the array
// the pointer finds, the first item each of whose pointers holds the text
// its template renders (format 2: a search that returns the document among
// others), and Then is the pointer in that item.
type Extract struct {
	From    string            `json:"from,omitempty"`
	Pointer string            `json:"pointer,omitempty"`
	Where   map[string]string `json:"where,omitempty"`
	Then    string            `json:"then,omitempty"`
	Pattern string            `json:"pattern,omitempty"`
	// All: every match of the pattern, in order, as an array of what its
	// first group matches (format 2): the items of a plain-text or Markdown
	// listing.
	All    bool   `json:"all,omitempty"`
	Lines  bool   `json:"lines,omitempty"`
	Decode string `json:"decode,omitempty"`

	field   string
	tokens  []string
	where   []whereClause
	then    []string
	pattern *regexpCache
}

// whereClause is one condition of a where: the value at a pointer in an
// item, and the text it must hold.
type whereClause struct {
	pointer string
	tokens  []string
	want    *Template
}

// pointerTokens splits a JSON Pointer into its reference tokens, unescaped.
func pointerTokens(pointer string) []string {
	if pointer == "" {
		return nil
	}
	var out []string
	for _, tok := range strings.Split(pointer[1:], "/") {
		out = append(out, strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
	}
	return out
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

// compile checks the extraction and compiles it; vars are the variables
// its where may name, those of the call whose reply it reads (nil: where is
// not read here).
func (e *Extract) compile(field string, vars map[string]bool) error {
	e.field = field
	if e.From == "text" && e.Pointer != "" {
		return &Error{Field: field + ".pointer", Err: errors.New("plain text has no pointer: use a pattern")}
	}
	e.tokens = pointerTokens(e.Pointer)
	switch {
	case len(e.Where) == 0 && e.Then != "":
		return &Error{Field: field + ".then", Err: errors.New("is the pointer in the item a where picks: give where")}
	case len(e.Where) > 0 && vars == nil:
		return &Error{Field: field + ".where", Err: errors.New("is not read here: only the extractions of a call's reply pick an item")}
	case len(e.Where) > 0 && e.From == "text":
		return &Error{Field: field + ".where", Err: errors.New("picks an item of a JSON array, which plain text is not: read it with text_json")}
	}
	for _, ptr := range slices.Sorted(maps.Keys(e.Where)) {
		f := field + ".where." + ptr
		if ptr == "" || ptr[0] != '/' {
			return &Error{Field: f, Err: errors.New("not a JSON Pointer into an item (such as /name)")}
		}
		want, err := compileString(f, e.Where[ptr], vars)
		if err != nil {
			return err
		}
		e.where = append(e.where, whereClause{pointer: ptr, tokens: pointerTokens(ptr), want: want})
	}
	e.then = pointerTokens(e.Then)
	if e.All && e.Pattern == "" {
		return &Error{Field: field + ".all", Err: errors.New("takes every match of the pattern: give a pattern")}
	}
	if e.Pattern != "" {
		var err error
		if e.pattern, err = compileRegexp(field+".pattern", e.Pattern); err != nil {
			return err
		}
		if e.pattern.re.NumSubexp() == 0 {
			return &Error{Field: field + ".pattern", Err: fmt.Errorf("%q has no group: the value is what its first group, (…), matches", e.Pattern)}
		}
	}
	return nil
}

// Field returns the profile field the extraction is.
func (e *Extract) Field() string { return e.field }

// ExtractError is an extraction that found nothing in a real reply, or
// found a value of another kind: the profile field, what it looked for,
// what it found, and the reply, cut short.
type ExtractError struct {
	Profile string
	Field   string
	Want    string
	// Why says what it found instead: "found nothing", "found the number
	// 3, not a string".
	Why   string
	Reply string
}

func (e *ExtractError) Error() string {
	why := e.Why
	if why == "" {
		why = "found nothing"
	}
	return fmt.Sprintf("profile %s: %s: %s %s in the reply %s", e.Profile, e.Field, e.Want, why, e.Reply)
}

// what says what the extraction looks for.
func (e *Extract) what() string {
	var parts []string
	if e.Pointer != "" {
		parts = append(parts, "pointer "+e.Pointer)
	}
	for _, w := range e.where {
		parts = append(parts, fmt.Sprintf("the item whose %s is %q", w.pointer, e.Where[w.pointer]))
	}
	if e.Then != "" {
		parts = append(parts, "then "+e.Then)
	}
	if e.Pattern != "" && e.All {
		parts = append(parts, "every match of pattern "+e.Pattern)
	} else if e.Pattern != "" {
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
	v, why := e.find(r)
	return v, why == ""
}

// find returns the value the extraction finds in r, or why it finds none:
// "" when it finds one.
func (e *Extract) find(r *Reply) (any, string) {
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
		return nil, "found nothing"
	}
	return e.apply(doc, r.Vars)
}

// follow returns the value at tokens in v, false when there is none.
func follow(v any, tokens []string) (any, bool) {
	for _, tok := range tokens {
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
	return v, true
}

// pick returns the first item of v that every clause of the where holds
// for, rendered with vars; or why there is none.
func (e *Extract) pick(v any, vars Vars) (any, string) {
	items, ok := v.([]any)
	if !ok {
		return nil, "found " + describeValue(v) + ", not an array to pick an item from"
	}
	wants := make([]string, len(e.where))
	for i, w := range e.where {
		s, err := w.want.String(vars)
		if err != nil {
			return nil, "cannot render " + e.field + ".where." + w.pointer + ": " + err.Error()
		}
		wants[i] = s
	}
	for _, it := range items {
		if e.holds(it, wants) {
			return it, ""
		}
	}
	return nil, fmt.Sprintf("found no item, of %d, whose %s", len(items), strings.Join(describeWants(e.where, wants), " and "))
}

// holds reports whether every clause of the where holds for item: the
// value at its pointer is the text it wants.
func (e *Extract) holds(item any, wants []string) bool {
	for i, w := range e.where {
		got, ok := follow(item, w.tokens)
		if !ok || scalarText(got) != wants[i] {
			return false
		}
	}
	return true
}

// describeWants says what each clause of a where wanted, as rendered.
func describeWants(where []whereClause, wants []string) []string {
	out := make([]string, len(where))
	for i, w := range where {
		out[i] = fmt.Sprintf("%s is %q", w.pointer, wants[i])
	}
	return out
}

// scalarText is a scalar's text as a where compares it: a string itself, a
// number as written, true or false; "" marks anything else, which no
// rendered text can be taken for.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return "\x00"
}

// apply finds the value in doc: the pointer, the item a where picks and the
// pointer in it, the lines, the decoding and the pattern; or why it finds
// none. vars render the where.
func (e *Extract) apply(doc any, vars Vars) (any, string) {
	v, ok := follow(doc, e.tokens)
	if !ok {
		return nil, "found nothing"
	}
	if len(e.where) > 0 {
		item, why := e.pick(v, vars)
		if why != "" {
			return nil, why
		}
		if v, ok = follow(item, e.then); !ok {
			return nil, "found the item, with nothing at " + e.Then
		}
	}
	if e.Lines {
		items, ok := v.([]any)
		if !ok {
			return nil, "found " + describeValue(v) + ", not an array of lines"
		}
		lines := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Sprintf("found an array whose element %d is %s, not a line", i, describeValue(it))
			}
			lines[i] = s
		}
		v = strings.Join(lines, "\n")
	}
	if e.Decode == "base64" {
		s, ok := v.(string)
		if !ok {
			return nil, "found " + describeValue(v) + ", not a base64 string"
		}
		b, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s))
		if err != nil {
			return nil, "found a string that is no base64 (" + err.Error() + ")"
		}
		v = string(b)
	}
	if e.pattern != nil {
		s, ok := v.(string)
		if !ok {
			return nil, "found " + describeValue(v) + ", not a string for the pattern"
		}
		if e.All {
			items := []any{}
			for _, m := range e.pattern.re.FindAllStringSubmatch(s, -1) {
				items = append(items, m[1])
			}
			return items, ""
		}
		m := e.pattern.re.FindStringSubmatch(s)
		if m == nil {
			return nil, "found nothing"
		}
		if len(m) > 1 {
			return m[1], ""
		}
		return m[0], ""
	}
	if v == nil {
		return nil, "found nothing"
	}
	return v, ""
}

// String returns the string the extraction finds in r.
func (e *Extract) String(profile string, r *Reply) (string, error) {
	v, why := e.find(r)
	if s, isStr := v.(string); why == "" && isStr {
		return s, nil
	}
	return "", e.fail(profile, "a string at "+e.what(), wrongKind(v, why, "a string"), r)
}

// wrongKind is why an extraction that found v did not find what it wants.
func wrongKind(v any, why, want string) string {
	if why != "" {
		return why
	}
	return "found " + describeValue(v) + ", not " + want
}

// Version returns the version the extraction finds in r: a string, or a
// number (a counter), which keeps its JSON text. A number only the
// structured content holds arrives decoded to a float64, which keeps an
// integer exact up to 2^53; the same number in the reply's text is taken
// as written. One beyond, in the structured content alone, cannot be
// known to its last digit and is an error rather than a wrong version.
func (e *Extract) Version(profile string, r *Reply) (contract.Version, error) {
	v, why := e.find(r)
	if f, ok := v.(float64); ok && why == "" && e.From != "structured" {
		if t, twhy := (&Extract{From: "text_json", tokens: e.tokens, Where: e.Where, where: e.where, then: e.then, Then: e.Then, All: e.All, Lines: e.Lines, Decode: e.Decode, pattern: e.pattern}).find(r); twhy == "" {
			if n, ok := t.(json.Number); ok {
				return contract.Version(n.String()), nil
			}
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return "", &ExtractError{Profile: profile, Field: e.field, Want: "a version at " + e.what(),
				Why: fmt.Sprintf("found the number %s in the structured content alone, which cannot hold it to its last digit", strconv.FormatFloat(f, 'g', -1, 64)), Reply: r.Short()}
		}
	}
	if why == "" {
		if vv, ok := versionOf(v); ok {
			return vv, nil
		}
	}
	return "", e.fail(profile, "a version at "+e.what(), wrongKind(v, why, "a string or an integer"), r)
}

func versionOf(v any) (contract.Version, bool) {
	switch x := v.(type) {
	case string:
		return contract.Version(x), x != ""
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return "", false
		}
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
	v, why := e.find(r)
	if items, isArr := v.([]any); why == "" && isArr {
		return items, nil
	}
	return nil, e.fail(profile, "an array at "+e.what(), wrongKind(v, why, "an array"), r)
}

// ItemString returns the string the extraction finds in one item of a
// list; false when it finds none.
func (e *Extract) ItemString(item any) (string, bool) {
	v, why := e.apply(item, nil) // an item's extractions have no where
	if why != "" {
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

func (e *Extract) fail(profile, want, why string, r *Reply) error {
	return &ExtractError{Profile: profile, Field: e.field, Want: want, Why: why, Reply: r.Short()}
}

// JSON returns the reply's result object as JSON: its text when that is a
// JSON object (as a server of the contract sends it), else its structured
// content; nil when it has neither.
func (r *Reply) JSON() json.RawMessage {
	if t := strings.TrimSpace(r.Text); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	if r.Structured != nil {
		if b, err := json.Marshal(r.Structured); err == nil {
			return b
		}
	}
	return nil
}
