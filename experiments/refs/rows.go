package refs

import "github.com/notesbench/notesbench/results"

import "strconv"

// The kinds of tab reference the refs experiment compares, as they appear in the
// "ref" key of its rows and of the published table.
const (
	// RefPosition is the tab's index in the bar.
	RefPosition = "position"
	// RefType is the tab's type, which resolves to the first tab of that type in
	// bar order, as the desktop app's fallback does.
	RefType = "type"
	// RefLabel is the tab's label, which resolves to the first tab carrying it.
	RefLabel = "label"
	// RefID is the tab's exact ID.
	RefID = "id"
)

// Kinds returns the reference kinds in the order of the published table.
func Kinds() []string { return []string{RefPosition, RefType, RefLabel, RefID} }

// Row is one row of the refs experiment: where a kept reference of one kind
// resolved, over every trial with K decks, after the person's edits.
//
// Correct, Wrong and NotFound are fractions of Trials (0..1) and add up to 1:
// the reference resolved to the target deck, to another tab (another deck, or a
// tab that is no deck at all), or to nothing.
//
// Every reference that resolved to a tab led to one write (an edit_note_tab
// slide_add to that tab) carrying the version of the listing it was resolved
// on. Writes counts them. Refused counts those the store turned down before it
// compared any version, because slide_add does not apply to the tab's type (a
// position reference that landed on the markdown, files or sources tab).
// PassedVersionCheck is the fraction of the other Writes − Refused writes that
// the version check let through; it is 0 when there were none.
type Row struct {
	K                  int     `json:"k"`
	Ref                string  `json:"ref"`
	Correct            float64 `json:"correct"`
	Wrong              float64 `json:"wrong"`
	NotFound           float64 `json:"not_found"`
	Trials             int     `json:"trials"`
	PassedVersionCheck float64 `json:"passed_version_check"`
	Writes             int     `json:"writes"`
	Refused            int     `json:"refused"`
}

// refsFields reads RefsRows by the names published.json uses.
var refsFields = results.Fields[Row]{
	Keys: map[string]func(Row) string{
		"k":   func(r Row) string { return strconv.Itoa(r.K) },
		"ref": func(r Row) string { return r.Ref },
	},
	Figures: map[string]func(Row) results.Value{
		"correct":              results.Number(func(r Row) float64 { return r.Correct }),
		"wrong":                results.Number(func(r Row) float64 { return r.Wrong }),
		"not_found":            results.Number(func(r Row) float64 { return r.NotFound }),
		"passed_version_check": results.Number(func(r Row) float64 { return r.PassedVersionCheck }),
	},
}

// KeyOf implements Row.
func (r Row) KeyOf(name string) string { return refsFields.Key(r, name) }

// FigureOf implements Row.
func (r Row) FigureOf(name string) (results.Value, bool) { return refsFields.Figure(r, name) }

// Names implements Row.
func (r Row) Names() (keys, figures []string) { return refsFields.Names() }

// proportionVerdicts judges each published fraction of refs against ours
// over the same number of trials by an exact test (JudgeProportion):
// replicating 10,000 trials per K would cost too much, and the spread a
// fraction over n trials has from sampling alone is known.
func proportionVerdicts(exp *results.Experiment, rows []Row) []results.Verdict {
	var out []results.Verdict
	for _, r := range rows {
		pub, ok := exp.Match(results.RowKey(exp, r))
		if !ok {
			continue
		}
		label := exp.Label(pub)
		for _, name := range []string{"correct", "wrong", "not_found"} {
			fig, ok := pub.Figure(name)
			if !ok {
				continue
			}
			v, _ := r.FigureOf(name)
			out = append(out, results.JudgeProportion(name, label, v.Nums[0], r.Trials, fig, results.DefaultMass))
		}
	}
	return out
}
