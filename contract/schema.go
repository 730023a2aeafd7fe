package contract

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

//go:embed tools_list.json
var toolsListJSON []byte

// Tool is one entry of the tools/list response.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations struct {
		ReadOnlyHint    bool `json:"readOnlyHint"`
		DestructiveHint bool `json:"destructiveHint"`
	} `json:"annotations"`
	SecuritySchemes []struct {
		Type   string   `json:"type"`
		Scopes []string `json:"scopes"`
	} `json:"securitySchemes"`
}

// Violation is one way a tool call's arguments break the schema: the JSON
// pointer of the offending value, the schema keyword, what the keyword
// wants in a few words ("50", "(want a, b)"; "" for required), and a
// message that says it in a sentence, for a person or a model to act on.
type Violation struct {
	Path    string `json:"path"`
	Keyword string `json:"keyword"`
	Want    string `json:"want"`
	Message string `json:"message"`
}

// String writes the violation tersely: "/limit: maximum 50".
func (v Violation) String() string {
	if v.Want == "" {
		return v.Path + ": " + v.Keyword
	}
	return v.Path + ": " + v.Keyword + " " + v.Want
}

// violation returns the Violation at path of keyword, wanting want, with the
// message that says it: message, or one made from the keyword.
func violation(path, keyword, want, message string) Violation {
	if message == "" {
		message = keywordMessage(path, keyword, want)
	}
	return Violation{Path: path, Keyword: keyword, Want: want, Message: message}
}

// keywordMessage says in a sentence what a keyword's violation asks of the
// call.
func keywordMessage(path, keyword, want string) string {
	name := strings.TrimPrefix(path, "/")
	if name == "" {
		name = "the arguments"
	}
	switch keyword {
	case "required":
		return name + " is missing: the call must carry it"
	case "additionalProperties":
		return name + " is not an argument of this tool: leave it out"
	case "enum":
		return name + " is none of the values it takes " + want
	case "maxItems":
		return name + " holds more than " + want + " items"
	case "minItems":
		return name + " holds fewer than " + want + " items"
	case "maximum":
		return name + " is above its maximum, " + want
	case "minimum":
		return name + " is below its minimum, " + want
	case "maxLength":
		return name + " is longer than " + want + " characters"
	case "minLength":
		return name + " is shorter than " + want + " characters"
	case "type":
		return name + " is of the wrong type: want " + want
	}
	return name + ": " + keyword + " " + want
}

type toolSchemas struct {
	tools   []Tool
	schemas map[string]*Schema
}

// Schema is a compiled JSON Schema of a tool's input, checked by a full JSON
// Schema validator: the seven tools' (ValidateArgs) and any other tool's a
// package names beside them (CompileSchema).
type Schema struct {
	s *jsonschema.Schema
}

// CompileSchema compiles the input schema of the tool called name.
func CompileSchema(name string, raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	loc := "mem://tools/" + name + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Schema{s: s}, nil
}

// Validate checks a call's arguments against the schema. It returns every
// violation, sorted by path; none means valid. Arguments larger than
// CheckArgsSize allows or malformed JSON are an InvalidArgumentError. Empty
// arguments are an empty object.
func (s *Schema) Validate(args json.RawMessage) ([]Violation, error) {
	if err := CheckArgsSize(args); err != nil {
		return nil, err
	}
	return s.validate(args)
}

// validate is Validate for arguments whose size was checked.
func (s *Schema) validate(args json.RawMessage) ([]Violation, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, Invalid("arguments", "malformed JSON: %v", err)
	}
	err = s.s.Validate(inst)
	if err == nil {
		return nil, nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, err
	}
	var out []Violation
	collect(verr, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

var loadSchemas = sync.OnceValues(func() (*toolSchemas, error) {
	var list struct {
		Tools []Tool `json:"tools"`
	}
	if err := json.Unmarshal(toolsListJSON, &list); err != nil {
		return nil, fmt.Errorf("tools_list.json: %w", err)
	}
	ts := &toolSchemas{tools: list.Tools, schemas: map[string]*Schema{}}
	for _, t := range list.Tools {
		sch, err := CompileSchema(t.Name, t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tools_list.json: %w", err)
		}
		ts.schemas[t.Name] = sch
	}
	return ts, nil
})

// Tools returns the seven tools of the rebuilt tools/list, in its order.
func Tools() []Tool {
	ts, err := loadSchemas()
	if err != nil {
		panic(err) // the embedded file is part of the build; tests load it
	}
	return ts.tools
}

// The largest tool call's arguments the contract takes. MaxArgsBytes is 4 MiB,
// the cap the MCP TypeScript SDK's HTTP server transports put on a message;
// MaxArgsValues is ten times the values of the largest valid call (a
// sheet_set_range of 100 × 100 cells), so that arguments of many tiny values
// (a 4 MiB array of numbers holds two million, and as many violations) cannot
// cost gigabytes to validate. Larger arguments are refused before they are
// parsed.
const (
	MaxArgsBytes  = 4 << 20
	MaxArgsValues = 100_000
)

// CheckArgsSize returns an *InvalidArgumentError for arguments larger than a
// tool call may be: more than MaxArgsBytes bytes, or more than MaxArgsValues
// JSON values (object keys count as values). It reads args as a stream of
// tokens and builds nothing; malformed JSON is left to the parser.
func CheckArgsSize(args []byte) error {
	if len(args) > MaxArgsBytes {
		return Invalid("arguments", "%d bytes, more than the %d a tool call may carry", len(args), MaxArgsBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	values := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or malformed JSON that the parser reports
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			continue
		}
		if values++; values > MaxArgsValues {
			return Invalid("arguments", "over %d JSON values, more than a tool call may carry", MaxArgsValues)
		}
	}
}

// ValidateArgs checks a tool call's arguments against the tool's input schema
// with a full JSON Schema validator. It returns every violation, sorted by path;
// none means valid. An unknown tool, arguments larger than CheckArgsSize
// allows or malformed JSON is an InvalidArgumentError.
func ValidateArgs(tool string, args json.RawMessage) ([]Violation, error) {
	if err := CheckArgsSize(args); err != nil {
		return nil, err
	}
	ts, err := loadSchemas()
	if err != nil {
		return nil, err
	}
	sch, ok := ts.schemas[tool]
	if !ok {
		return nil, Invalid("tool", "unknown tool %q", tool)
	}
	return sch.validate(args)
}

// collect appends the leaves of a validation error tree as violations.
func collect(e *jsonschema.ValidationError, out *[]Violation) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, out)
		}
		return
	}
	path := "/" + strings.Join(e.InstanceLocation, "/")
	at := func(name string) string { return strings.TrimSuffix(path, "/") + "/" + name }
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, violation(at(m), "required", "", ""))
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, violation(at(p), "additionalProperties", "false", ""))
		}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		*out = append(*out, violation(path, "enum", "(want "+strings.Join(want, ", ")+")", ""))
	case *kind.MaxItems:
		*out = append(*out, violation(path, "maxItems", fmt.Sprint(k.Want), ""))
	case *kind.MinItems:
		*out = append(*out, violation(path, "minItems", fmt.Sprint(k.Want), ""))
	case *kind.Maximum:
		*out = append(*out, violation(path, "maximum", ratString(k.Want), ""))
	case *kind.Minimum:
		*out = append(*out, violation(path, "minimum", ratString(k.Want), ""))
	case *kind.MinLength:
		*out = append(*out, violation(path, "minLength", fmt.Sprint(k.Want), ""))
	case *kind.MaxLength:
		*out = append(*out, violation(path, "maxLength", fmt.Sprint(k.Want), ""))
	case *kind.Type:
		*out = append(*out, violation(path, "type", strings.Join(k.Want, " or ")+" (got "+k.Got+")", ""))
	default:
		kw := strings.Join(e.ErrorKind.KeywordPath(), "/")
		msg := e.ErrorKind.LocalizedString(printer)
		*out = append(*out, violation(path, kw, msg, msg))
	}
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(6)
}
