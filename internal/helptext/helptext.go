package helptext

import (
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/notesbench/notesbench/report"
)

// Help is what a command's help says, as plain text and rows: the caller
// takes it from its command library, Render lays it out.
type Help struct {
	// Text is the command's long description (or its summary), paragraphs
	// separated by blank lines.
	Text string
	// Usage are the usage lines ("notesbench race [flags]").
	Usage []string
	// Example holds the examples, one a line, each a command and an
	// optional "# comment".
	Example string
	// Commands are the subcommands, each its name and its summary.
	Commands []Row
	// Flags and GlobalFlags are the flags in two columns: the flag as it is
	// typed (with the kind of value it takes) and what it does.
	Flags, GlobalFlags []Row
	// More is the command that tells more about a subcommand, if any.
	More string
}

// Row is one line of a two-column list: a name and what it is.
type Row struct{ Name, About string }

// Render lays h out in width columns: its text with every paragraph wrapped
// (indented lines wrapped under their indent), its usage, its examples (see
// exampleLines), its subcommands with their summaries wrapped beside their
// names, and its flags in two columns (see columns).
func (h Help) Render(width int) string {
	width = max(width, 40)
	var b strings.Builder
	b.WriteString(report.WrapText(h.Text, width))
	b.WriteString("\n\nUsage:\n")
	for _, u := range h.Usage {
		b.WriteString("  " + u + "\n")
	}
	if h.Example != "" {
		b.WriteString("\nExamples:\n" + exampleLines(h.Example, width))
	}
	if len(h.Commands) > 0 {
		b.WriteString("\nCommands:\n")
		pad := 0
		for _, c := range h.Commands {
			pad = max(pad, len(c.Name))
		}
		for _, c := range h.Commands {
			head := "  " + c.Name + strings.Repeat(" ", pad-len(c.Name)+2)
			b.WriteString(report.Hanging(head, c.About, width) + "\n")
		}
	}
	if len(h.Flags) > 0 {
		b.WriteString("\nFlags:\n" + columns(h.Flags, width))
	}
	if len(h.GlobalFlags) > 0 {
		b.WriteString("\nGlobal flags:\n" + columns(h.GlobalFlags, width))
	}
	if h.More != "" {
		b.WriteString("\nFor more about a command:\n  " + h.More + "\n")
	}
	return b.String()
}

// ExampleIndent is how far examples are indented, and continuedIndent how
// much further the continued lines of a long one.
const (
	ExampleIndent   = "  "
	continuedIndent = "    "
)

// exampleLines lays out a command's examples, each an example command and
// an optional "# comment". A command longer than the width is continued on
// lines of its own as a shell continues it: after a ;, &&, || or | that
// ends a line, or after a backslash, never inside a word or quotes, so that
// pasted into a shell the lines run the example. The comments of the
// examples stand in one column beside their commands when every commented
// command takes one line and all of them fit within width there; otherwise
// each comment goes on lines of its own above its command, wrapped, each
// line a shell comment.
func exampleLines(example string, width int) string {
	type ex struct {
		command []string
		comment string
	}
	var exs []ex
	col := 0 // the comment column
	beside := true
	for _, line := range strings.Split(example, "\n") {
		command, comment := SplitComment(strings.TrimSpace(line))
		if command == "" && comment == "" {
			continue
		}
		e := ex{continued(command, width), comment}
		exs = append(exs, e)
		if comment != "" {
			col = max(col, len(ExampleIndent)+utf8.RuneCountInString(command)+2)
			beside = beside && len(e.command) == 1
		}
	}
	for _, e := range exs {
		if e.comment != "" && col+utf8.RuneCountInString("# "+e.comment) > width {
			beside = false
		}
	}
	var b strings.Builder
	for _, e := range exs {
		switch {
		case e.comment == "":
		case beside:
			head := ExampleIndent + e.command[0]
			b.WriteString(head + strings.Repeat(" ", col-utf8.RuneCountInString(head)) + "# " + e.comment + "\n")
			continue
		default:
			for _, l := range strings.Split(report.Hanging("", e.comment, width-len(ExampleIndent)-2), "\n") {
				b.WriteString(ExampleIndent + "# " + l + "\n")
			}
		}
		for i, l := range e.command {
			if i > 0 {
				l = continuedIndent + l
			}
			b.WriteString(ExampleIndent + l + "\n")
		}
	}
	return b.String()
}

// continued breaks command into the lines of a shell command that fit width
// with their indents (ExampleIndent, then continuedIndent too): the words as
// many as fit, the line ended by the list operator the break follows (the
// last such break that fits is taken), or else by a backslash, before a
// flag rather than between it and its value. A word wider than a line
// stands on a line of its own.
func continued(command string, width int) []string {
	words := ShellWords(command)
	var lines []string
	for i := 0; i < len(words); {
		room := width - len(ExampleIndent)
		if len(lines) > 0 {
			room -= len(continuedIndent)
		}
		if rest := strings.Join(words[i:], " "); utf8.RuneCountInString(rest) <= room {
			return append(lines, rest)
		}
		j, n := i+1, utf8.RuneCountInString(words[i])
		for j < len(words) && n+1+utf8.RuneCountInString(words[j])+len(" \\") <= room {
			n += 1 + utf8.RuneCountInString(words[j])
			j++
		}
		broken := false
		for k := j - 1; k > i && !broken; k-- {
			if ListOperator(words[k]) {
				j, broken = k+1, true
			}
		}
		// A flag goes to the next line with its value, when both fit there.
		if flag := words[j-1]; !broken && j < len(words) && j-1 > i && strings.HasPrefix(flag, "-") && !strings.HasPrefix(words[j], "-") &&
			utf8.RuneCountInString(flag+" "+words[j]+" \\") <= width-len(ExampleIndent)-len(continuedIndent) {
			j--
		}
		line := strings.Join(words[i:j], " ")
		if !ListOperator(words[j-1]) {
			line += " \\"
		}
		lines = append(lines, line)
		i = j
	}
	return lines
}

// ListOperator reports whether a shell word ends a command of a list, after
// which a line may end: ;, &&, || or |, or a word ending in ;.
func ListOperator(w string) bool {
	return w == "&&" || w == "||" || w == "|" || strings.HasSuffix(w, ";")
}

// ShellWords splits command into its words as a shell does, each as it is
// written: spaces outside quotes separate them, quotes stay in the word.
func ShellWords(command string) []string {
	var words []string
	for start, end := range wordSpans(command) {
		words = append(words, command[start:end])
	}
	return words
}

// SplitComment splits an example line into its command and the text of its
// comment: what follows the first # that starts a shell word outside
// quotes. Both come trimmed.
func SplitComment(line string) (command, comment string) {
	for start := range wordSpans(line) {
		if line[start] == '#' {
			return strings.TrimSpace(line[:start]), strings.TrimSpace(line[start+1:])
		}
	}
	return strings.TrimSpace(line), ""
}

// wordSpans yields where each word of command starts and ends, as a shell
// splits it: at blanks outside quotes.
func wordSpans(command string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		var quote rune
		start := -1
		for i, r := range command {
			switch {
			case quote != 0:
				if r == quote {
					quote = 0
				}
			case r == '\'' || r == '"':
				quote = r
			case r == ' ' || r == '\t':
				if start >= 0 && !yield(start, i) {
					return
				}
				start = -1
				continue
			}
			if start < 0 {
				start = i
			}
		}
		if start >= 0 {
			yield(start, len(command))
		}
	}
}

// columns lists rows in two columns fitted to width: each name on the
// left, what it is on the right, every description and its wrapped lines
// starting at one column. A name too wide for that column stands on a line
// of its own, its description below it at the column.
func columns(rows []Row, width int) string {
	longest := 0
	for _, r := range rows {
		longest = max(longest, utf8.RuneCountInString(r.Name))
	}
	// The names take at most two fifths of the width: the descriptions keep
	// the rest.
	col := min(longest+2, width*2/5)
	pad := strings.Repeat(" ", col)
	var b strings.Builder
	for _, r := range rows {
		n := utf8.RuneCountInString(r.Name)
		if n+2 <= col {
			b.WriteString(report.Hanging(r.Name+pad[n:], r.About, width) + "\n")
			continue
		}
		b.WriteString(r.Name + "\n" + report.Hanging(pad, r.About, width) + "\n")
	}
	return b.String()
}
