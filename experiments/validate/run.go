package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/sim"
)

// PayloadResult is the verdict on one payload for one tool.
//
// Violations holds every violation the full JSON Schema validator
// (contract.ValidateArgs) finds, sorted by path; Valid says there are none, and
// Full is the same verdict in words: "ok", or the violations as
// "path: keyword …" joined by "; ". Minimal is the verdict of the minimal
// validator, which checks only required, enum, additionalProperties, minItems
// and maxItems, in its own words ("ok", "missing title", "slides: maxItems 20").
type PayloadResult struct {
	Tool       string               `json:"tool"`
	Valid      bool                 `json:"valid"`
	Violations []contract.Violation `json:"violations"`
	Full       string               `json:"full"`
	Minimal    string               `json:"minimal"`
}

// CheckPayload checks payload, the JSON arguments of a call to tool, against
// the tool's input schema in the embedded tools/list, with both validators. An
// unknown tool, or a payload that is empty, not JSON or holds more JSON values
// than a tool call may carry, is an error naming the problem; a payload that breaks the schema is not an error but a result with
// Valid false. Every error is thus the caller's bad input (exit code 2), but for
// a broken embedded tools/list, which the tests rule out.
func CheckPayload(tool string, payload []byte) (PayloadResult, error) {
	if err := contract.CheckArgsSize(payload); err != nil {
		return PayloadResult{}, fmt.Errorf("the payload has over %s JSON values, more than a tool call may carry (the largest valid call has about 10,000)",
			plural.Int(contract.MaxArgsValues))
	}
	schemas, err := loadMinimalSchemas()
	if err != nil {
		return PayloadResult{}, err
	}
	root, ok := schemas[tool]
	if !ok {
		names := make([]string, 0, len(contract.Tools()))
		for _, t := range contract.Tools() {
			names = append(names, t.Name)
		}
		return PayloadResult{}, fmt.Errorf("unknown tool %q (want one of %s)", tool, strings.Join(names, ", "))
	}
	if len(bytes.TrimSpace(payload)) == 0 {
		return PayloadResult{}, errors.New("payload is empty, want a JSON object")
	}
	var instance any
	if err := json.Unmarshal(payload, &instance); err != nil {
		return PayloadResult{}, fmt.Errorf("payload is not JSON: %w", err)
	}
	violations, err := contract.ValidateArgs(tool, payload)
	if err != nil {
		return PayloadResult{}, fmt.Errorf("validating %s arguments: %w", tool, err)
	}
	return PayloadResult{
		Tool:       tool,
		Valid:      len(violations) == 0,
		Violations: experiment.NonNil(violations),
		Full:       fullVerdict(violations),
		Minimal:    minimalVerdict(root, instance),
	}, nil
}

// fullVerdict writes the full validator's violations as one verdict.
func fullVerdict(violations []contract.Violation) string {
	if len(violations) == 0 {
		return "ok"
	}
	parts := make([]string, len(violations))
	for i, v := range violations {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

// Run runs the validate experiment: the eight published
// payloads a model might send, each with the ids a model would send filled in
// (note_id, tab_id, expected_version, idempotency_key) so that only the
// payload's own fault shows, judged by the minimal and the full validator. The
// rows come in the published order.
func (Config) Run(ctx context.Context, _ sim.Runtime, _ []uint64) (sim.Result[Row, struct{}], error) {
	var res sim.Result[Row, struct{}]
	for _, p := range validatePayloads() {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		v, err := CheckPayload(p.tool, p.args)
		if err != nil {
			return res, fmt.Errorf("payload %q: %w", p.desc, err)
		}
		res.Rows = append(res.Rows, Row{Tool: p.tool, Payload: p.desc, Minimal: v.Minimal,
			Full: v.Full, Args: p.args})
	}
	return res, nil
}

// Config is the validate experiment: the published payloads, each checked
// with the minimal and the full validator. It has no parameters; its JSON form
// says how many payloads it checks.
type Config struct {
	Payloads int `json:"payloads"`
}

var _ sim.Runner[Row, struct{}] = Config{}

// Default is the published validate setup: the eight payloads.
func Default() Config { return Config{Payloads: len(validatePayloads())} }

// SeedList implements sim.Runner: validating draws nothing at random.
func (Config) SeedList() []uint64 { return nil }

// Validate implements sim.Runner: validating checks no target.
func (Config) Validate(contract.Target) error { return nil }

// Describe implements sim.Runner.
func (Config) Describe(contract.Target) string { return "the embedded tools_list.json" }

// Departures implements sim.Runner: validating runs against no target, as
// published.
func (Config) Departures(contract.Target) []string { return nil }

// The ids the validate experiment's payloads carry, shaped as the store makes
// them and as a model's client sends them.
const (
	payloadIDs      = `"note_id":"note-5f0c2a4e","expected_version":7,"idempotency_key":"8b6f0a52-3c1e-4d7a-9f21-6c0d4e8a1b37"`
	payloadTabIDs   = `"note_id":"note-5f0c2a4e","tab_id":"slides-4-mh8z1k2a","expected_version":7,"idempotency_key":"8b6f0a52-3c1e-4d7a-9f21-6c0d4e8a1b37"`
	payloadNoteOnly = `"note_id":"note-5f0c2a4e"`
)

// validatePayload is one payload of the validate experiment: the tool, the
// published description (ids omitted) and the arguments as sent.
type validatePayload struct {
	tool string
	desc string
	args json.RawMessage
}

// validatePayloads returns the eight payloads of the published table, in its
// order.
func validatePayloads() []validatePayload {
	slides := make([]string, 21)
	for i := range slides {
		slides[i] = fmt.Sprintf(`{"title":"Slide %d"}`, i+1)
	}
	obj := func(ids, rest string) json.RawMessage { return json.RawMessage("{" + ids + "," + rest + "}") }
	return []validatePayload{
		{"edit_note_tab", "operation slide_add, title, body",
			obj(payloadTabIDs, `"operation":"slide_add","title":"Sources","body":"3 links"`)},
		{"edit_note_tab", "operation slide_add, title, index 0",
			obj(payloadTabIDs, `"operation":"slide_add","title":"Sources","index":0`)},
		{"edit_note_tab", "operation slides_add, slides [{title}]",
			obj(payloadTabIDs, `"operation":"slides_add","slides":[{"title":"a"}]`)},
		{"edit_note_tab", "operation slides_add_outline, a slide with bullets",
			obj(payloadTabIDs, `"operation":"slides_add_outline","slides":[{"title":"Findings","bullets":["Revenue up 12 %","Churn flat"]}]`)},
		{"create_note_tab", "tab_type slides, 21 slides",
			obj(payloadIDs, `"tab_type":"slides","slides":[`+strings.Join(slides, ",")+`]`)},
		{"create_note_tab", "tab_type markdown",
			obj(payloadIDs, `"tab_type":"markdown"`)},
		{"add_note_source", "url only",
			obj(payloadIDs, `"url":"https://example.org/report"`)},
		{"list_note_attachments", "kind sources, limit 100",
			obj(payloadNoteOnly, `"kind":"sources","limit":100`)},
	}
}

// minimalSchema is the part of a JSON Schema the minimal validator reads:
// required, enum, additionalProperties (false or not), minItems, maxItems, and
// the properties, items and $ref through which they nest. Every other keyword is
// ignored, on purpose: this is the validator the published rebuild used.
type minimalSchema struct {
	Ref                  string                    `json:"$ref"`
	Required             []string                  `json:"required"`
	Enum                 []any                     `json:"enum"` // nil: no enum
	Properties           map[string]*minimalSchema `json:"properties"`
	AdditionalProperties json.RawMessage           `json:"additionalProperties"`
	Items                *minimalSchema            `json:"items"`
	MinItems             *int                      `json:"minItems"`
	MaxItems             *int                      `json:"maxItems"`
	Defs                 map[string]*minimalSchema `json:"$defs"`

	ref *minimalSchema // what Ref points to, resolved when loading
}

// closed reports whether the schema forbids properties it does not list.
func (s *minimalSchema) closed() bool {
	return string(bytes.TrimSpace(s.AdditionalProperties)) == "false"
}

// loadMinimalSchemas reads the input schema of every tool in the embedded
// tools/list (contract.Tools) and resolves their $refs.
var loadMinimalSchemas = sync.OnceValues(func() (map[string]*minimalSchema, error) {
	out := map[string]*minimalSchema{}
	for _, t := range contract.Tools() {
		var s minimalSchema
		if err := json.Unmarshal(t.InputSchema, &s); err != nil {
			return nil, fmt.Errorf("tools_list.json: %s: %w", t.Name, err)
		}
		if err := resolveRefs(&s, &s, map[*minimalSchema]bool{}); err != nil {
			return nil, fmt.Errorf("tools_list.json: %s: %w", t.Name, err)
		}
		out[t.Name] = &s
	}
	return out, nil
})

// resolveRefs points every $ref under s at its target among root's $defs. Only
// references of the form "#/$defs/name" exist in the tools/list; any other, or
// a chain of references that never reaches a schema, is an error.
func resolveRefs(root, s *minimalSchema, seen map[*minimalSchema]bool) error {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	if s.Ref != "" {
		target, err := lookupDef(root, s.Ref)
		if err != nil {
			return err
		}
		s.ref = target
		for hops := 0; target.Ref != ""; hops++ {
			if hops >= len(root.Defs) {
				return fmt.Errorf("$ref %q: the references go round in a circle", s.Ref)
			}
			if target, err = lookupDef(root, target.Ref); err != nil {
				return err
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if err := resolveRefs(root, s.Properties[name], seen); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Defs)) {
		if err := resolveRefs(root, s.Defs[name], seen); err != nil {
			return err
		}
	}
	return resolveRefs(root, s.Items, seen)
}

// lookupDef returns the definition a "#/$defs/name" reference names.
func lookupDef(root *minimalSchema, ref string) (*minimalSchema, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	target := root.Defs[name]
	if !ok || target == nil {
		return nil, fmt.Errorf("$ref %q: no such definition", ref)
	}
	return target, nil
}

// minimalVerdict checks instance against root with the minimal validator and
// returns its verdict: "ok", or every fault in words joined by "; ".
func minimalVerdict(root *minimalSchema, instance any) string {
	var faults []string
	checkMinimal(root, instance, "", &faults)
	if len(faults) == 0 {
		return "ok"
	}
	return strings.Join(faults, "; ")
}

// checkMinimal appends the faults of v against s to faults. path is where v sits
// in the payload, written as a reader would ("slides[0].title"), "" at the top;
// a fault is "path: what", or just "what" at the top ("missing title").
// Properties are visited in sorted order, so the faults come in a fixed order.
func checkMinimal(s *minimalSchema, v any, path string, faults *[]string) {
	if s == nil {
		return
	}
	fault := func(what string) {
		if path != "" {
			what = path + ": " + what
		}
		*faults = append(*faults, what)
	}
	if s.ref != nil {
		checkMinimal(s.ref, v, path, faults)
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		fault("not in enum")
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := v[name]; !ok {
				fault("missing " + name)
			}
		}
		names := slices.Sorted(maps.Keys(v))
		if s.closed() {
			for _, name := range names {
				if _, ok := s.Properties[name]; !ok {
					fault("unexpected " + name)
				}
			}
		}
		for _, name := range names {
			child := name
			if path != "" {
				child = path + "." + name
			}
			checkMinimal(s.Properties[name], v[name], child, faults)
		}
	case []any:
		if s.MinItems != nil && len(v) < *s.MinItems {
			fault(fmt.Sprintf("minItems %d", *s.MinItems))
		}
		if s.MaxItems != nil && len(v) > *s.MaxItems {
			fault(fmt.Sprintf("maxItems %d", *s.MaxItems))
		}
		for i, item := range v {
			checkMinimal(s.Items, item, fmt.Sprintf("%s[%d]", path, i), faults)
		}
	}
}
