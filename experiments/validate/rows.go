package validate

import (
	"encoding/json"

	"github.com/notesbench/notesbench/results"
)

// Row is one row of the validate experiment: one payload a model might
// send, and the verdicts of the two validators on it.
//
// Payload describes the payload in the words of the published table (ids
// omitted), so that it matches the published row; Args is the payload itself as
// checked, ids filled in. Minimal is the verdict of the minimal validator
// (required, enum, additionalProperties, minItems and maxItems only), e.g.
// "slides: maxItems 20"; Full is that of the full JSON Schema validator, its
// violations as "path: keyword …" joined by "; ". Both are "ok" for a payload
// they accept.
type Row struct {
	Tool    string          `json:"tool"`
	Payload string          `json:"payload"`
	Minimal string          `json:"minimal"`
	Full    string          `json:"full"`
	Args    json.RawMessage `json:"args"`
}

// validateFields reads ValidateRows by the names published.json uses.
var validateFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"tool":    func(r Row) string { return r.Tool },
		"payload": func(r Row) string { return r.Payload },
	},
	Figures: map[string]func(Row) results.Value{
		"minimal": results.Text(func(r Row) string { return r.Minimal }),
		"full":    results.Text(func(r Row) string { return r.Full }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return validateFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return validateFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return validateFields.Names() }
