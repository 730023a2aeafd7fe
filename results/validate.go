package results

import "encoding/json"

// ValidateRow is one row of the validate experiment: one payload a model might
// send, and the verdicts of the two validators on it.
//
// Payload describes the payload in the words of the published table (ids
// omitted), so that it matches the published row; Args is the payload itself as
// checked, ids filled in. Minimal is the verdict of the minimal validator
// (required, enum, additionalProperties, minItems and maxItems only), e.g.
// "slides: maxItems 20"; Full is that of the full JSON Schema validator, its
// violations as "path: keyword …" joined by "; ". Both are "ok" for a payload
// they accept.
type ValidateRow struct {
	Tool    string          `json:"tool"`
	Payload string          `json:"payload"`
	Minimal string          `json:"minimal"`
	Full    string          `json:"full"`
	Args    json.RawMessage `json:"args"`
}

// validateFields reads ValidateRows by the names published.json uses.
var validateFields = Fields[ValidateRow]{
	Keys: map[string]func(ValidateRow) string{
		"tool":    func(r ValidateRow) string { return r.Tool },
		"payload": func(r ValidateRow) string { return r.Payload },
	},
	Figures: map[string]func(ValidateRow) Value{
		"minimal": Text(func(r ValidateRow) string { return r.Minimal }),
		"full":    Text(func(r ValidateRow) string { return r.Full }),
	},
}

// KeyOf implements Row.
func (r ValidateRow) KeyOf(name string) string { return validateFields.Key(r, name) }

// FigureOf implements Row.
func (r ValidateRow) FigureOf(name string) (Value, bool) { return validateFields.Figure(r, name) }

// Names implements Row.
func (r ValidateRow) Names() (keys, figures []string) { return validateFields.Names() }
