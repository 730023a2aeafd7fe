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

// exampleIndent is how far examples are indented.
const exampleIndent = "  "

// exampleLines lays out a command's examples, one a line, each an example
// command and an optional "# comment". A command is never broken, however
// long: pasted into a shell, a line runs the example. The comments of the
// examples stand in one column beside their commands when all of them fit
// within width there; otherwise each comment goes on lines of its own above
// its command, wrapped, each line a shell comment.
func exampleLines(example string, width int) string {
	type ex struct{ command, comment string }
	var exs []ex
	col := 0 // the comment column
	for _, line := range strings.Split(example, "\n") {
		command, comment := splitComment(strings.TrimSpace(line))
		if command == "" && comment == "" {
			continue
		}
		exs = append(exs, ex{command, comment})
		if comment != "" {
			col = max(col, len(exampleIndent)+utf8.RuneCountInString(command)+2)
		}
	}
	beside := true
	for _, e := range exs {
		if e.comment != "" && col+utf8.RuneCountInString("# "+e.comment) > width {
			beside = false
		}
	}
	var b strings.Builder
	for _, e := range exs {
		switch {
		case e.comment == "":
			b.WriteString(exampleIndent + e.command + "\n")
		case beside:
			head := exampleIndent + e.command
			b.WriteString(head + strings.Repeat(" ", col-utf8.RuneCountInString(head)) + "# " + e.comment + "\n")
		default:
			for _, l := range strings.Split(report.Hanging("", e.comment, width-len(exampleIndent)-2), "\n") {
				b.WriteString(exampleIndent + "# " + l + "\n")
			}
			b.WriteString(exampleIndent + e.command + "\n")
		}
	}
	return b.String()
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
