package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A Table is one printed table: a title, a header, rows of already formatted
// cells, and notes printed under it (warnings, where the published figures come
// from, the verdict summary). Every row has as many cells as the header.
type Table struct {
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	Notes  []string   `json:"notes"`
	// Keys is how many leading columns name a row ("Guard", "On conflict"); 0
	// means one. A table too wide for the terminal repeats them in every part.
	Keys int `json:"-"`
}

// Render writes tables to w in format f, separated by a blank line, with no
// limit on the width: RenderWidth with width 0.
func Render(w io.Writer, f Format, tables ...Table) error {
	return RenderWidth(w, f, 0, tables...)
}

// RenderWidth writes tables to w in format f, separated by a blank line, for
// the formats that render tables (formats says which):
//
//   - table: the title on a line of its own, the table boxed by tablewriter with
//     the header as given (not upper-cased) and numeric columns right-aligned,
//     then each note on a line. With width > 0 (the terminal's columns; below
//     MinWidth taken as MinWidth) every table is laid out to fit it: headers
//     wrapped, then published figures folded under ours, then the columns
//     split into parts, then one box per row (see layoutText); titles and
//     notes are wrapped at spaces;
//   - markdown: "### Title", a GitHub pipe table ('|' and '\' escaped, line
//     breaks as <br>, numeric columns right-aligned), then the notes as a list;
//   - csv: one header, CSVHeader, then a record per cell that is not a key
//     column (the title as the table, the key cells as the row, the header as
//     the figure, the cell as ours); notes are not written. A command writes
//     its section's Records instead, with plain numbers (Write).
//
// json, gobench and html render a result, benchmark lines and a page, not
// tables (Write), and are an error here. A row whose width differs from its
// header's is an error, found before anything is written.
func RenderWidth(w io.Writer, f Format, width int, tables ...Table) error {
	for _, t := range tables {
		if err := t.check(); err != nil {
			return err
		}
	}
	spec, err := lookupFormat(f)
	if err != nil {
		return err
	}
	if spec.tables == nil {
		return fmt.Errorf("format %s holds %s, not tables", f, spec.renders)
	}
	return spec.tables(w, width, tables)
}

// WriteJSON writes v as JSON indented by two spaces, with a trailing newline and
// without HTML escaping ("<" stays "<").
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// renderEach renders every table with one renderer, a blank line between.
func renderEach(w io.Writer, tables []Table, render func(io.Writer, Table) error) error {
	for i, t := range tables {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := render(w, t); err != nil {
			return err
		}
	}
	return nil
}

// check reports a table that cannot be rendered.
func (t Table) check() error {
	if len(t.Header) == 0 {
		return fmt.Errorf("table %q has no header", t.Title)
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Header) {
			return fmt.Errorf("table %q: row %d has %d cells, the header %d", t.Title, i+1, len(r), len(t.Header))
		}
	}
	return nil
}

// keyColumns is how many leading columns name a row: Keys, 1 when Keys is 0,
// never more than the columns there are.
func (t Table) keyColumns() int { return min(max(t.Keys, 1), len(t.Header)) }

// publishedPair reports whether column c+1 of header holds the published
// figure of column c (it is headed PublishedHeader(header[c])).
func publishedPair(header []string, c int) bool {
	return c+1 < len(header) && header[c+1] == PublishedHeader(header[c])
}

// numericColumns reports, per column, whether every cell that holds something
// is a number, a range or a per-seed list of numbers ("5,400", "43.0 %",
// "1.41–1.48", "71 / 61 / 63"); NotPublished and "n/a" cells do not count.
func (t Table) numericColumns() []bool {
	out := make([]bool, len(t.Header))
	for c := range t.Header {
		seen := false
		out[c] = true
		for _, r := range t.Rows {
			cell := strings.TrimSpace(r[c])
			if cell == "" || cell == NotPublished || cell == "n/a" {
				continue
			}
			seen = true
			if !numeric(cell) {
				out[c] = false
				break
			}
		}
		out[c] = out[c] && seen
	}
	return out
}

// numeric reports whether a cell is made of numbers only.
func numeric(cell string) bool {
	digit := false
	for _, r := range cell {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune(",.-–/ %×+", r):
		default:
			return false
		}
	}
	return digit
}
