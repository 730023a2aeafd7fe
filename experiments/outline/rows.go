package outline

import "github.com/notesbench/notesbench/results"

// The approaches the outline experiment compares, as they appear in the
// "approach" key of its rows and of the published table.
const (
	// ApproachOutline is create_note_tab carrying the slides as an outline, with
	// slides_add_outline calls for whatever does not fit in the create's 20.
	ApproachOutline = "outline"
	// ApproachSlideAdd is an empty create_note_tab followed by one slide_add per
	// slide.
	ApproachSlideAdd = "slide-add"
)

// Row is one row of the outline experiment: what one approach costs to
// build a deck.
//
// Writes is the number of write calls the approach sends for one deck, and
// RequestBytes the total length of their JSON arguments exactly as sent (the
// agent's initial list_note_tabs is the same for both approaches and is left
// out of both). ConflictsPerDeck is the mean number of those writes that a
// person's save landed before, over the simulated decks; ExpectedConflicts is
// its exact expectation under the same model.
type Row struct {
	Approach          string  `json:"approach"`
	Writes            int     `json:"writes"`
	RequestBytes      int     `json:"request_bytes"`
	ConflictsPerDeck  float64 `json:"conflicts_per_deck"`
	ExpectedConflicts float64 `json:"expected_conflicts"`
}

// outlineFields reads OutlineRows by the names published.json uses.
var outlineFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"approach": func(r Row) string { return r.Approach },
	},
	Figures: map[string]func(Row) results.Value{
		"writes":             results.Count(func(r Row) int { return r.Writes }),
		"request_bytes":      results.Count(func(r Row) int { return r.RequestBytes }),
		"conflicts_per_deck": results.Number(func(r Row) float64 { return r.ConflictsPerDeck }),
		"expected_conflicts": results.Number(func(r Row) float64 { return r.ExpectedConflicts }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return outlineFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return outlineFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return outlineFields.Names() }
