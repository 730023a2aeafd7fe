package report

import "strings"

// WrapText wraps each paragraph of text (lines between blank ones) to width:
// the lines of a paragraph that starts with a letter are joined and
// re-wrapped; indented lines are wrapped one by one under their indent.
func WrapText(text string, width int) string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(para, "\n")
		if strings.HasPrefix(lines[0], " ") {
			for i, l := range lines {
				lines[i] = WrapLine(l, width)
			}
			out = append(out, strings.Join(lines, "\n"))
			continue
		}
		out = append(out, Hanging("", strings.Join(lines, " "), width))
	}
	return strings.Join(out, "\n\n")
}

// WrapLine wraps one line to width, its continuations under its indent.
func WrapLine(line string, width int) string {
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	return Hanging(indent, body, width)
}

// Hanging writes head then text wrapped to width at spaces, each line after
// the first indented as far as head is wide. A word longer than a line is
// left whole.
func Hanging(head, text string, width int) string {
	indent := strings.Repeat(" ", len([]rune(head)))
	var b strings.Builder
	b.WriteString(head)
	col := len([]rune(head))
	first := true
	for _, word := range strings.Fields(text) {
		n := len([]rune(word))
		switch {
		case first:
		case col+1+n > width:
			b.WriteString("\n" + indent)
			col = len(indent)
			first = true
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
		first = false
	}
	return b.String()
}
