package report

import (
	"slices"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// Beside is the published row matching one row of ours, if there is one: an
// experiment's table puts its figures beside ours with Cell.
type Beside struct {
	row results.PubRow
	ok  bool
	exp *results.Experiment
}

// PublishedFor looks up the published row matching key in exp (nil exp:
// none).
func PublishedFor(exp *results.Experiment, key map[string]string) Beside {
	if exp == nil {
		return Beside{}
	}
	r, ok := exp.Match(key)
	return Beside{r, ok, exp}
}

// Found reports whether a published row matched ours.
func (p Beside) Found() bool { return p.ok }

// Figure returns the row's published figure called name, the zero Figure
// (shown as not published) where the row has none. A name no published row
// of the experiment has is a renderer's misspelling, not a figure left
// out: it panics, so that every test rendering it fails, rather than show
// "—" where a figure was published.
func (p Beside) Figure(name string) results.Figure {
	if !p.exp.Declares(name) {
		panic("report: " + p.exp.Name + " publishes no figure called " + name)
	}
	f, _ := p.row.Figure(name)
	return f
}

// Cell formats each named figure of the published row, joined by " / " when
// there are several; NotPublished when the row or every figure is missing.
func (p Beside) Cell(num func(float64) string, names ...string) string {
	if !p.ok {
		return NotPublished
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, Published(p.Figure(n), num))
	}
	if strings.Trim(strings.Join(parts, ""), NotPublished) == "" {
		return NotPublished
	}
	return strings.Join(parts, " / ")
}

// WithPublished interleaves our cells with published ones: for each column pair
// it appends ours, then (when pub is shown) the published cell.
func WithPublished(show bool, pairs ...[2]string) []string {
	var out []string
	for _, p := range pairs {
		out = append(out, p[0])
		if show {
			out = append(out, p[1])
		}
	}
	return out
}

// Headers returns the column headers names, each followed by its published
// column when show is set.
func Headers(show bool, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, n)
		if show {
			out = append(out, PublishedHeader(n))
		}
	}
	return out
}

// An Extra is a column of ours only, shown when some row has a figure in
// it: what errors and faults bring to a table of the published figures.
// Its published column, when shown, is NotPublished.
type Extra[Row any] struct {
	Header string
	Has    func(Row) bool
	Cell   func(Row) string
}

// CountColumn is the Extra of a count, shown when a row's is above 0.
func CountColumn[Row any](header string, n func(Row) int) Extra[Row] {
	return Extra[Row]{Header: header, Has: func(r Row) bool { return n(r) > 0 }, Cell: func(r Row) string { return Int(int64(n(r))) }}
}

// ExtrasIn returns the columns of cols some row of rows has a figure in, in
// order.
func ExtrasIn[Row any](cols []Extra[Row], rows []Row) []Extra[Row] {
	var out []Extra[Row]
	for _, c := range cols {
		if slices.ContainsFunc(rows, c.Has) {
			out = append(out, c)
		}
	}
	return out
}

// ExtraHeaders returns the headers of cols, as Headers does.
func ExtraHeaders[Row any](show bool, cols []Extra[Row]) []string {
	var out []string
	for _, c := range cols {
		out = append(out, Headers(show, c.Header)...)
	}
	return out
}

// ExtraCells returns r's cells of cols, as WithPublished does.
func ExtraCells[Row any](show bool, cols []Extra[Row], r Row) []string {
	var out []string
	for _, c := range cols {
		out = append(out, WithPublished(show, [2]string{c.Cell(r), NotPublished})...)
	}
	return out
}
