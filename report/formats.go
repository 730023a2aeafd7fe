package report

import (
	"io"
	"strings"
)

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
