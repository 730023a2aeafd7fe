package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/notesbench/notesbench/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpText is a command's help, fitted to width columns: its long text with
// every paragraph wrapped (indented lines wrapped under their indent), its
// usage, its examples (see exampleLines), subcommands with their summaries
// wrapped beside their names, and its flags in two columns (see flagTable).
func helpText(cmd *cobra.Command, width int) string {
	width = max(width, 40)
	var b strings.Builder
	text := cmd.Long
	if text == "" {
		text = cmd.Short
	}
	b.WriteString(report.WrapText(text, width))
	b.WriteString("\n\nUsage:\n")
	if cmd.Runnable() {
		b.WriteString("  " + cmd.UseLine() + "\n")
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString("  " + cmd.CommandPath() + " [command]\n")
	}
	if cmd.HasExample() {
		b.WriteString("\nExamples:\n" + exampleLines(cmd.Example, width))
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
			b.WriteString(report.Hanging(head, c.Short, width) + "\n")
		}
	}
	if fs := cmd.LocalFlags(); fs.HasAvailableFlags() {
		b.WriteString("\nFlags:\n" + flagTable(fs, width))
	}
	if fs := cmd.InheritedFlags(); fs.HasAvailableFlags() {
		b.WriteString("\nGlobal flags:\n" + flagTable(fs, width))
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString("\nFor more about a command:\n  " + cmd.CommandPath() + " [command] --help\n")
	}
	return b.String()
}

// exampleIndent is how far examples are indented, and continuedIndent how
// much further the continued lines of a long one.
const (
	exampleIndent   = "  "
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
		command, comment := splitComment(strings.TrimSpace(line))
		if command == "" && comment == "" {
			continue
		}
		e := ex{continued(command, width), comment}
		exs = append(exs, e)
		if comment != "" {
			col = max(col, len(exampleIndent)+utf8.RuneCountInString(command)+2)
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
			head := exampleIndent + e.command[0]
			b.WriteString(head + strings.Repeat(" ", col-utf8.RuneCountInString(head)) + "# " + e.comment + "\n")
			continue
		default:
			for _, l := range strings.Split(report.Hanging("", e.comment, width-len(exampleIndent)-2), "\n") {
				b.WriteString(exampleIndent + "# " + l + "\n")
			}
		}
		for i, l := range e.command {
			if i > 0 {
				l = continuedIndent + l
			}
			b.WriteString(exampleIndent + l + "\n")
		}
	}
	return b.String()
}

// continued breaks command into the lines of a shell command that fit width
// with their indents (exampleIndent, then continuedIndent too): the words as
// many as fit, the line ended by the list operator the break follows (the
// last such break that fits is taken), or else by a backslash, before a
// flag rather than between it and its value. A word wider than a line
// stands on a line of its own.
func continued(command string, width int) []string {
	words := shellWords(command)
	var lines []string
	for i := 0; i < len(words); {
		room := width - len(exampleIndent)
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
			if listOperator(words[k]) {
				j, broken = k+1, true
			}
		}
		// A flag goes to the next line with its value, when both fit there.
		if flag := words[j-1]; !broken && j < len(words) && j-1 > i && strings.HasPrefix(flag, "-") && !strings.HasPrefix(words[j], "-") &&
			utf8.RuneCountInString(flag+" "+words[j]+" \\") <= width-len(exampleIndent)-len(continuedIndent) {
			j--
		}
		line := strings.Join(words[i:j], " ")
		if !listOperator(words[j-1]) {
			line += " \\"
		}
		lines = append(lines, line)
		i = j
	}
	return lines
}

// listOperator reports whether a shell word ends a command of a list, after
// which a line may end: ;, &&, || or |, or a word ending in ;.
func listOperator(w string) bool {
	return w == "&&" || w == "||" || w == "|" || strings.HasSuffix(w, ";")
}

// shellWords splits command into its words as a shell does, each as it is
// written: spaces outside quotes separate them, quotes stay in the word.
func shellWords(command string) []string {
	var words []string
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
			if start >= 0 {
				words = append(words, command[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, command[start:])
	}
	return words
}

// exampleProgram is how the examples call notesbench, as the README's do:
// the binary go build writes in the clone, which a target's command finds
// there too (stdio:./notesbench serve), where a bare notesbench is looked up
// on $PATH and needs go install.
const exampleProgram = "./notesbench"

// spellProgram writes an example command's calls of notesbench as
// exampleProgram: the word notesbench where a command starts (the first
// word, or one after a list operator), and where a quoted command starts,
// or its stdio: target (--target 'stdio:notesbench serve …', --spawn
// 'notesbench serve …').
func spellProgram(command string) string {
	words := shellWords(command)
	for i, w := range words {
		if w == "notesbench" && (i == 0 || listOperator(words[i-1])) {
			words[i] = exampleProgram
			continue
		}
		if len(w) < 2 || (w[0] != '\'' && w[0] != '"') {
			continue
		}
		for _, head := range []string{"notesbench ", "stdio:notesbench "} {
			if rest, ok := strings.CutPrefix(w[1:], head); ok {
				words[i] = w[:1] + strings.Replace(head, "notesbench", exampleProgram, 1) + rest
			}
		}
	}
	return strings.Join(words, " ")
}

// splitComment splits an example line into its command and the text of its
// comment: what follows the first # that starts a shell word outside
// quotes. Both come trimmed.
func splitComment(line string) (command, comment string) {
	var quote rune
	prev := ' '
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t'):
			return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		}
		prev = r
	}
	return strings.TrimSpace(line), ""
}

// flagTable lists fs's flags in two columns fitted to width: each flag's
// name (and the kind of value it takes) on the left, its description on the
// right, every description and its wrapped lines starting at one column. A
// name too wide for that column stands on a line of its own, its
// description below it at the column.
func flagTable(fs *pflag.FlagSet, width int) string {
	type row struct{ name, desc string }
	var rows []row
	longest := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		r := row{flagName(f), flagDescription(f)}
		rows = append(rows, r)
		longest = max(longest, utf8.RuneCountInString(r.name))
	})
	// The names take at most two fifths of the width: the descriptions keep
	// the rest.
	col := min(longest+2, width*2/5)
	pad := strings.Repeat(" ", col)
	var b strings.Builder
	for _, r := range rows {
		n := utf8.RuneCountInString(r.name)
		if n+2 <= col {
			b.WriteString(report.Hanging(r.name+pad[n:], r.desc, width) + "\n")
			continue
		}
		b.WriteString(r.name + "\n" + report.Hanging(pad, r.desc, width) + "\n")
	}
	return b.String()
}

// flagName is the left column of a flag's row, as pflag writes it: its
// shorthand, its name, the kind of value it takes and the value it takes
// when given alone.
func flagName(f *pflag.Flag) string {
	name := "      --" + f.Name
	if f.Shorthand != "" && f.ShorthandDeprecated == "" {
		name = "  -" + f.Shorthand + ", --" + f.Name
	}
	if varname, _ := pflag.UnquoteUsage(f); varname != "" {
		name += " " + varname
	}
	if f.NoOptDefVal != "" {
		switch f.Value.Type() {
		case "string":
			name += fmt.Sprintf("[=%q]", f.NoOptDefVal)
		case "bool", "boolfunc":
			if f.NoOptDefVal != "true" {
				name += "[=" + f.NoOptDefVal + "]"
			}
		case "count":
			if f.NoOptDefVal != "+1" {
				name += "[=" + f.NoOptDefVal + "]"
			}
		default:
			name += "[=" + f.NoOptDefVal + "]"
		}
	}
	return name
}

// flagDescription is the right column of a flag's row: its usage and, when
// it is not the zero value, its default, as pflag writes them. pflag alone
// knows which defaults it leaves out, so the description is taken from its
// listing of the one flag, after the name.
func flagDescription(f *pflag.Flag) string {
	one := pflag.NewFlagSet("", pflag.ContinueOnError)
	one.AddFlag(f)
	line := strings.TrimRight(one.FlagUsagesWrapped(0), "\n")
	if rest, ok := strings.CutPrefix(line, flagName(f)); ok {
		return strings.TrimSpace(rest)
	}
	_, usage := pflag.UnquoteUsage(f)
	return usage
}
