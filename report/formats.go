package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/notesbench/notesbench/contract"
)

// Format is an output format.
type Format string

// The output formats; formats says what each renders.
const (
	// FormatTable is boxed text tables for a terminal.
	FormatTable Format = "table"
	// FormatMarkdown is GitHub pipe tables under "### Title" lines.
	FormatMarkdown Format = "markdown"
	// FormatCSV is tidy CSV under one header, CSVHeader: a record per figure.
	FormatCSV Format = "csv"
	// FormatJSON is the result object as JSON (WriteJSON), never tables.
	FormatJSON Format = "json"
	// FormatGoBench is Go benchmark lines for benchstat (WriteGoBench).
	FormatGoBench Format = "gobench"
	// FormatHTML is one self-contained HTML page.
	FormatHTML Format = "html"
)

// String returns the name of f.
func (f Format) String() string { return string(f) }

// Content is what an output holds, as a set: each format renders one kind
// of it, and a command offers the formats of what its outputs hold
// (FormatNames).
type Content uint8

// The kinds of content, each rendered by formats of its own.
const (
	// ContentTables is tables for people: Output.Section's tables, or
	// Output.Text (table, markdown).
	ContentTables Content = 1 << iota
	// ContentRecords is CSV records: Output.Section.Records (csv).
	ContentRecords
	// ContentResult is the result object: Output.Result (json).
	ContentResult
	// ContentGoBench is benchmark results: Output.GoBench (gobench).
	ContentGoBench
	// ContentPage is one self-contained HTML page: Output.HTML (html).
	ContentPage
)

// String says what c holds, for errors: "benchmark results".
func (c Content) String() string {
	var out []string
	for _, k := range []struct {
		c    Content
		what string
	}{{ContentTables, "tables"}, {ContentRecords, "CSV records"}, {ContentResult, "the JSON result"}, {ContentGoBench, "benchmark results"}, {ContentPage, "an HTML page"}} {
		if c&k.c != 0 {
			out = append(out, k.what)
		}
	}
	if n := len(out); n > 1 {
		return strings.Join(out[:n-1], ", ") + " and " + out[n-1]
	}
	return strings.Join(out, "")
}

// Output is everything a command can print of one result, built whole
// before anything is written: each format writes the part it renders
// (Write). A part the command's output does not hold stays zero, and its
// formats are not offered.
type Output struct {
	// Section holds the tables (table, markdown) and the CSV records (csv).
	Section Section
	// Text, when set, writes the output for people in table or markdown
	// instead of Section's tables: a document of headings and tables (an
	// audit), tables with lines under them (a reproduction).
	Text func(w io.Writer, f Format, width int) error
	// Result is the result object (json).
	Result any
	// GoBench are the Go benchmark lines (gobench).
	GoBench []Benchmark
	// HTML writes the page (html).
	HTML func(w io.Writer) error
}

// A formatSpec is one output format: its name, what it renders, how it
// writes an output (nil: as tables, Output.Text or Section's), and how it
// writes tables alone (nil: it renders no tables).
type formatSpec struct {
	format  Format
	renders Content
	write   func(w io.Writer, o Output) error
	tables  func(w io.Writer, width int, tables []Table) error
}

// formats are the output formats, in the order --format lists them: the
// one place that knows them. Adding one is adding its entry and its
// renderer; every command whose outputs hold what it renders offers it.
var formats = []formatSpec{
	{format: FormatTable, renders: ContentTables, tables: func(w io.Writer, width int, tables []Table) error {
		return renderEach(w, tables, func(w io.Writer, t Table) error { return renderText(w, t, width) })
	}},
	{format: FormatMarkdown, renders: ContentTables, tables: func(w io.Writer, _ int, tables []Table) error {
		return renderEach(w, tables, renderMarkdown)
	}},
	{format: FormatCSV, renders: ContentRecords,
		write:  func(w io.Writer, o Output) error { return WriteCSV(w, o.Section.Records) },
		tables: func(w io.Writer, _ int, tables []Table) error { return renderCSV(w, tables) }},
	{format: FormatJSON, renders: ContentResult, write: func(w io.Writer, o Output) error { return WriteJSON(w, o.Result) }},
	{format: FormatGoBench, renders: ContentGoBench, write: func(w io.Writer, o Output) error { return WriteGoBench(w, o.GoBench...) }},
	{format: FormatHTML, renders: ContentPage, write: func(w io.Writer, o Output) error {
		if o.HTML == nil {
			return errors.New("the output holds no HTML page")
		}
		return o.HTML(w)
	}},
}

// Formats is the enum of the output formats.
var Formats = contract.NewEnum("format", formatList(^Content(0))...)

// formatList returns the formats whose content is among holds, in order.
func formatList(holds Content) []Format {
	var out []Format
	for _, s := range formats {
		if holds&s.renders == s.renders {
			out = append(out, s.format)
		}
	}
	return out
}

// FormatNames returns the names of the formats an output holding holds can
// be written in, in the order --format lists them: table, markdown and json
// for tables and a result.
func FormatNames(holds Content) []string {
	var out []string
	for _, f := range formatList(holds) {
		out = append(out, string(f))
	}
	return out
}

// lookupFormat returns the format f names.
func lookupFormat(f Format) (formatSpec, error) {
	for _, s := range formats {
		if s.format == f {
			return s, nil
		}
	}
	return formatSpec{}, fmt.Errorf("unknown format %q (want %s)", string(f), Formats.Want())
}

// Write writes o to w in format f: its tables (or Text) in table and
// markdown, laid out for width as RenderWidth does; its CSV records in csv;
// its result in json; its benchmark lines in gobench; its page in html.
func Write(w io.Writer, f Format, width int, o Output) error {
	spec, err := lookupFormat(f)
	if err != nil {
		return err
	}
	switch {
	case spec.write != nil:
		return spec.write(w, o)
	case o.Text != nil:
		return o.Text(w, f, width)
	}
	return RenderWidth(w, f, width, o.Section.Tables()...)
}

// renderText writes t as boxed text tables laid out for width columns (0: no
// limit), a blank line between the boxes of one table.
func renderText(w io.Writer, t Table, width int) error {
	for i, b := range layoutText(t, width) {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := b.render(w); err != nil {
			return err
		}
	}
	return nil
}

// renderMarkdown writes t as a GitHub pipe table.
func renderMarkdown(w io.Writer, t Table) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("### " + mdEscape(t.Title) + "\n\n")
	}
	mdRow(&b, t.Header)
	seps := make([]string, len(t.Header))
	for i, num := range t.numericColumns() {
		seps[i] = "---"
		if num {
			seps[i] = "---:"
		}
	}
	b.WriteString("|" + strings.Join(seps, "|") + "|\n")
	for _, r := range t.Rows {
		mdRow(&b, r)
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	notes := make([]string, len(t.Notes))
	for i, n := range t.Notes {
		notes[i] = mdEscape(n)
	}
	return writeLines(w, "- ", notes)
}

// mdRow appends one pipe-table row.
func mdRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + mdEscape(c) + " |")
	}
	b.WriteString("\n")
}

// mdEscape makes s safe inside a pipe-table cell or a list item.
var mdEscape = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\r\n", "<br>", "\n", "<br>").Replace

// renderCSV writes tables as CSV records under CSVHeader: a record per cell
// that is not a key column, the title as the table. An experiment's command
// writes the records of its rows instead (Section.Records), whose numbers are
// plain.
func renderCSV(w io.Writer, tables []Table) error {
	var records []Record
	for _, t := range tables {
		records = append(records, tableRecords(t)...)
	}
	return WriteCSV(w, records)
}

// writeLines writes each line with a prefix and a newline.
func writeLines(w io.Writer, prefix string, lines []string) error {
	for _, l := range lines {
		if _, err := io.WriteString(w, prefix+l+"\n"); err != nil {
			return err
		}
	}
	return nil
}
