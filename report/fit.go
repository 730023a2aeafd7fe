package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"
)

// MinWidth is the narrowest terminal the table format lays tables out for: a
// narrower width is taken as MinWidth.
const MinWidth = 40

// pubPrefix starts the second line of a cell that holds ours and, under it, the
// published figure, when a table is too wide for the published columns of its
// own.
const pubPrefix = "pub "

// mergedNote is the note under a table whose published columns were folded
// into ours.
const mergedNote = `"pub": the published figure, under ours (none where the write-ups give none)`

// box is a table as the table format prints it: a title, a boxed grid whose
// cells may span several lines, and notes.
type box struct {
	title  string
	header []string
	rows   [][]string
	right  []bool // right-aligned columns
	notes  []string
}

// boxOf returns t as one box, numeric columns right-aligned.
func boxOf(t Table) box {
	b := box{title: t.Title, header: slices.Clone(t.Header), rows: cloneRows(t.Rows), right: t.numericColumns(), notes: t.Notes}
	if !slices.ContainsFunc(t.Header, func(h string) bool { return h != "" }) && len(t.Rows) > 0 {
		b.header = nil // a header of nothing is no row of the box
	}
	return b
}

func cloneRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
	}
	return out
}

// layoutText returns the boxes t prints as on a terminal of width columns
// (0: no limit). It tries, in order, and keeps the first that fits:
//
//  1. the table as it is;
//  2. headers wrapped at spaces, no wider than their column's cells;
//  3. each published column folded into ours, the published figure on a
//     second line of the cell after "pub " (and a note saying so), headers
//     wrapped;
//  4. besides, the cells of text columns wrapped at spaces;
//  5. the columns split into parts, each repeating the columns that name a
//     row (Table.Keys), titled "(part 1 of 2)", the notes under the last —
//     without wrapped cells if that fits, else with;
//  6. one box per row, a line per figure: ours and the published figure side
//     by side, long cells wrapped at spaces.
//
// Titles and notes are wrapped at spaces to the width.
func layoutText(t Table, width int) []box {
	base := boxOf(t)
	if width <= 0 {
		return []box{base}
	}
	width = max(width, MinWidth)
	out := func(bs ...box) []box {
		for i := range bs {
			bs[i].title = wrapText(bs[i].title, width, "")
			notes := make([]string, len(bs[i].notes))
			for j, n := range bs[i].notes {
				notes[j] = wrapText(n, width, "  ")
			}
			bs[i].notes = notes
		}
		return bs
	}
	if base.width() <= width {
		return out(base)
	}
	wrapped := base.wrapHeader()
	if wrapped.width() <= width {
		return out(wrapped)
	}
	merged := base.mergePublished().wrapHeader()
	if merged.width() <= width {
		return out(merged)
	}
	shrunk := merged.shrink(width, true)
	if shrunk.width() <= width {
		return out(shrunk)
	}
	keys := t.keyColumns()
	if parts := merged.split(keys, width); parts != nil {
		return out(parts...)
	}
	if parts := shrunk.split(keys, width); parts != nil {
		return out(parts...)
	}
	return out(vertical(t, keys, width)...)
}

// colWidths returns the display width of each column: its widest line,
// header included.
func (b box) colWidths() []int {
	ws := make([]int, b.cols())
	for c := range ws {
		if b.header != nil {
			ws[c] = linesWidth(b.header[c])
		}
		for _, r := range b.rows {
			ws[c] = max(ws[c], linesWidth(r[c]))
		}
	}
	return ws
}

// cols is the number of columns of b.
func (b box) cols() int {
	if b.header == nil && len(b.rows) > 0 {
		return len(b.rows[0])
	}
	return len(b.header)
}

// width is how many columns the boxed grid takes: a border and one space of
// padding on each side of every cell.
func (b box) width() int {
	w := 1
	for _, cw := range b.colWidths() {
		w += cw + 3
	}
	return w
}

// linesWidth is the display width of the widest line of s.
func linesWidth(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, twwidth.Width(line))
	}
	return w
}

// wrapHeader wraps every header at spaces so that it is no wider than the
// cells of its column, or than its longest word.
func (b box) wrapHeader() box {
	b.header = slices.Clone(b.header)
	for c, h := range b.header {
		cells := 0
		for _, r := range b.rows {
			cells = max(cells, linesWidth(r[c]))
		}
		b.header[c] = wrapWords(h, max(cells, longestWord(h)))
	}
	return b
}

// mergePublished folds every published column (headed PublishedHeader(h),
// right after the column headed h) into ours: the published figure goes on a
// second line after "pub ", unless the write-ups give none.
func (b box) mergePublished() box {
	out := box{title: b.title, notes: b.notes}
	merged := false
	for c := 0; c < len(b.header); c++ {
		pair := publishedPair(b.header, c)
		out.header = append(out.header, b.header[c])
		out.right = append(out.right, b.right[c])
		for i, r := range b.rows {
			if i >= len(out.rows) {
				out.rows = append(out.rows, nil)
			}
			cell := r[c]
			if pair && r[c+1] != NotPublished && r[c+1] != "" {
				cell += "\n" + pubPrefix + r[c+1]
			}
			out.rows[i] = append(out.rows[i], cell)
		}
		if pair {
			merged = true
			c++
		}
	}
	if merged {
		out.notes = append([]string{mergedNote}, b.notes...)
	}
	return out
}

// split cuts b's columns into parts no wider than width, each repeating the
// first keys columns; nil when keys and one more column do not fit, or when it
// would take more than three parts.
func (b box) split(keys, width int) []box {
	if keys >= len(b.header) {
		return nil
	}
	ws := b.colWidths()
	keyWidth := 1
	for _, w := range ws[:keys] {
		keyWidth += w + 3
	}
	var groups [][]int
	used := width + 1
	for c := keys; c < len(b.header); c++ {
		if keyWidth+ws[c]+3 > width {
			return nil
		}
		if used+ws[c]+3 > width {
			groups = append(groups, nil)
			used = keyWidth
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], c)
		used += ws[c] + 3
	}
	if len(groups) > 3 {
		return nil
	}
	parts := make([]box, len(groups))
	for i, g := range groups {
		cols := append(seq(keys), g...)
		p := box{title: fmt.Sprintf("%s (part %d of %d)", b.title, i+1, len(groups))}
		for _, c := range cols {
			p.header = append(p.header, b.header[c])
			p.right = append(p.right, b.right[c])
		}
		for _, r := range b.rows {
			row := make([]string, len(cols))
			for j, c := range cols {
				row[j] = r[c]
			}
			p.rows = append(p.rows, row)
		}
		if i == len(groups)-1 {
			p.notes = b.notes
		}
		parts[i] = p
	}
	return parts
}

// seq returns 0, 1, …, n−1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// vertical lays t out as one box per row, titled by the row's key columns,
// with a line per other column: its header, ours and, when t has published
// columns, the published figure. Cells too wide for width are wrapped at
// spaces. The title goes above the first box and the notes under the last.
func vertical(t Table, keys, width int) []box {
	right := t.numericColumns()
	type figure struct {
		name     string
		ours     int
		pub      int // -1: none
		numerics bool
	}
	var figs []figure
	hasPub := false
	for c := keys; c < len(t.Header); c++ {
		f := figure{name: t.Header[c], ours: c, pub: -1, numerics: right[c]}
		if publishedPair(t.Header, c) {
			f.pub, hasPub = c+1, true
			c++
		}
		figs = append(figs, f)
	}
	// Without published columns the box has no header: each line is a
	// column's header and its cell.
	var header []string
	if hasPub {
		header = []string{"Figure", "Ours", "Published"}
	}
	out := make([]box, 0, len(t.Rows))
	for i, r := range t.Rows {
		var label []string
		for c := range keys {
			label = append(label, t.Header[c]+" "+r[c])
		}
		b := box{title: strings.Join(label, ", "), header: header, right: make([]bool, 3)}
		for _, f := range figs {
			row := []string{f.name, r[f.ours]}
			if hasPub {
				pub := NotPublished
				if f.pub >= 0 {
					pub = r[f.pub]
				}
				row = append(row, pub)
			}
			b.rows = append(b.rows, row)
		}
		if i == 0 {
			b.title = t.Title + "\n" + b.title
		}
		if i == len(t.Rows)-1 {
			b.notes = t.Notes
		}
		out = append(out, b.shrink(width, false))
	}
	if len(out) == 0 {
		out = append(out, box{title: t.Title, header: header, right: make([]bool, 3), notes: t.Notes})
	}
	return out
}

// shrink wraps the cells of b's widest columns (only its text columns, when
// textOnly) at spaces until b fits width, or no column can be wrapped
// narrower.
func (b box) shrink(width int, textOnly bool) box {
	b.rows = cloneRows(b.rows)
	b.header = slices.Clone(b.header)
	for range b.cols() {
		excess := b.width() - width
		if excess <= 0 {
			return b
		}
		ws := b.colWidths()
		best, bestRoom := -1, 0
		for c := range b.cols() {
			if textOnly && b.right[c] {
				continue
			}
			floor := 0
			if b.header != nil {
				floor = longestWord(b.header[c])
			}
			for _, r := range b.rows {
				floor = max(floor, longestWord(r[c]))
			}
			if room := ws[c] - floor; room > bestRoom {
				best, bestRoom = c, room
			}
		}
		if best < 0 {
			return b
		}
		target := ws[best] - min(excess, bestRoom)
		if b.header != nil {
			b.header[best] = wrapWords(strings.ReplaceAll(b.header[best], "\n", " "), target)
		}
		for _, r := range b.rows {
			r[best] = wrapWords(r[best], target)
		}
	}
	return b
}

// longestWord is the display width of the longest space-separated word of s.
func longestWord(s string) int {
	w := 0
	for _, word := range words(s) {
		w = max(w, twwidth.Width(word))
	}
	return w
}

// words splits s at spaces into the units a line may break between: a
// percent sign or a closing bracket stays with the word before it ("(28 %)"
// is one unit).
func words(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if len(out) > 0 && (strings.HasPrefix(f, "%") || strings.HasPrefix(f, ")")) {
			out[len(out)-1] += " " + f
			continue
		}
		out = append(out, f)
	}
	return out
}

// wrapWords breaks s at spaces into lines no wider than width where the words
// allow, joined by "\n". Existing line breaks stay.
func wrapWords(s string, width int) string {
	var lines []string
	for para := range strings.SplitSeq(s, "\n") {
		line := ""
		for _, word := range words(para) {
			switch {
			case line == "":
				line = word
			case twwidth.Width(line)+1+twwidth.Width(word) <= width:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// wrapText wraps a title or a note to width, continuation lines starting
// with indent.
func wrapText(s string, width int, indent string) string {
	if twwidth.Width(s) <= width {
		return s
	}
	var out []string
	for para := range strings.SplitSeq(s, "\n") {
		lines := strings.Split(wrapWords(para, width-twwidth.Width(indent)), "\n")
		for i, l := range lines {
			if i > 0 {
				l = indent + l
			}
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// render writes b: its title, the boxed grid (a rule between rows when a cell
// spans several lines) and its notes.
func (b box) render(w io.Writer) error {
	if b.title != "" {
		if _, err := io.WriteString(w, b.title+"\n"); err != nil {
			return err
		}
	}
	align := make(tw.Alignment, b.cols())
	for i, r := range b.right[:b.cols()] {
		align[i] = tw.AlignLeft
		if r {
			align[i] = tw.AlignRight
		}
	}
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithAlignment(align),
	}
	if b.multiline() {
		opts = append(opts, tablewriter.WithRendition(tw.Rendition{Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}}}))
	}
	tbl := tablewriter.NewTable(w, opts...)
	if b.header != nil {
		tbl.Header(b.header)
	}
	if err := tbl.Bulk(b.rows); err != nil {
		return err
	}
	if err := tbl.Render(); err != nil {
		return err
	}
	return writeLines(w, "", b.notes)
}

// multiline reports whether a row of b spans several lines.
func (b box) multiline() bool {
	for _, r := range b.rows {
		for _, c := range r {
			if strings.Contains(c, "\n") {
				return true
			}
		}
	}
	return false
}
