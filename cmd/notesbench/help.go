package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpText is a command's help, fitted to width columns: its long text with
// every paragraph wrapped (indented lines wrapped under their indent), its
// usage, examples, subcommands with their summaries wrapped beside their
// names, and its flags with their usages wrapped beside them.
func helpText(cmd *cobra.Command, width int) string {
	width = max(width, 40)
	var b strings.Builder
	text := cmd.Long
	if text == "" {
		text = cmd.Short
	}
	b.WriteString(wrapText(text, width))
	b.WriteString("\n\nUsage:\n")
	if cmd.Runnable() {
		b.WriteString("  " + cmd.UseLine() + "\n")
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString("  " + cmd.CommandPath() + " [command]\n")
	}
	if cmd.HasExample() {
		b.WriteString("\nExamples:\n")
		for _, line := range strings.Split(cmd.Example, "\n") {
			b.WriteString(wrapLine(line, width) + "\n")
		}
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString("\nCommands:\n")
		pad := 0
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				pad = max(pad, len(c.Name()))
			}
		}
		for _, c := range cmd.Commands() {
			if !c.IsAvailableCommand() {
				continue
			}
			head := "  " + c.Name() + strings.Repeat(" ", pad-len(c.Name())+2)
			b.WriteString(hanging(head, c.Short, width) + "\n")
		}
	}
	if fs := cmd.LocalFlags(); fs.HasAvailableFlags() {
		b.WriteString("\nFlags:\n" + flagUsages(fs, width))
	}
	if fs := cmd.InheritedFlags(); fs.HasAvailableFlags() {
		b.WriteString("\nGlobal flags:\n" + flagUsages(fs, width))
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString(fmt.Sprintf("\nUse \"%s [command] --help\" for more about a command.\n", cmd.CommandPath()))
	}
	return b.String()
}

// flagUsages lists fs's flags with their usages wrapped to width.
func flagUsages(fs *pflag.FlagSet, width int) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(fs.FlagUsagesWrapped(width-1), "\n"), "\n") {
		b.WriteString(wrapLine(line, width) + "\n")
	}
	return b.String()
}

// wrapText wraps each paragraph of text (lines between blank ones) to width:
// the lines of a paragraph that starts with a letter are joined and
// re-wrapped; indented lines are wrapped one by one under their indent.
func wrapText(text string, width int) string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(para, "\n")
		if strings.HasPrefix(lines[0], " ") {
			for i, l := range lines {
				lines[i] = wrapLine(l, width)
			}
			out = append(out, strings.Join(lines, "\n"))
			continue
		}
		out = append(out, hanging("", strings.Join(lines, " "), width))
	}
	return strings.Join(out, "\n\n")
}

// wrapLine wraps one line to width, its continuations under its indent.
func wrapLine(line string, width int) string {
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	return hanging(indent, body, width)
}

// hanging writes head then text wrapped to width at spaces, each line after
// the first indented as far as head is wide. A word longer than a line is
// left whole.
func hanging(head, text string, width int) string {
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
