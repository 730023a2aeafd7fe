package cli

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/internal/helptext"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

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
	words := helptext.ShellWords(command)
	for i, w := range words {
		if w == "notesbench" && (i == 0 || helptext.ListOperator(words[i-1])) {
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

// Examples indents a command's examples as cobra prints them, each calling
// notesbench as the README does (spellProgram): declared as notesbench
// COMMAND, an example reads ./notesbench COMMAND.
func Examples(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		command, comment := helptext.SplitComment(l)
		out[i] = helptext.ExampleIndent + spellProgram(command)
		if comment != "" {
			out[i] += "  # " + comment
		}
	}
	return strings.Join(out, "\n")
}

// HelpOf is what cmd's help says, as helptext lays it out: its long text
// (or its summary), usage, examples, available subcommands and flags, each
// flag as pflag writes it (see flagName and flagDescription).
func HelpOf(cmd *cobra.Command) helptext.Help {
	h := helptext.Help{Text: cmp.Or(cmd.Long, cmd.Short), Example: cmd.Example}
	if cmd.Runnable() {
		h.Usage = append(h.Usage, cmd.UseLine())
	}
	if cmd.HasAvailableSubCommands() {
		h.Usage = append(h.Usage, cmd.CommandPath()+" [command]")
		h.More = cmd.CommandPath() + " [command] --help"
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				h.Commands = append(h.Commands, helptext.Row{Name: c.Name(), About: c.Short})
			}
		}
	}
	h.Flags, h.GlobalFlags = flagRows(cmd.LocalFlags()), flagRows(cmd.InheritedFlags())
	return h
}

// flagRows are fs's flags but the hidden ones, each its name and its
// description.
func flagRows(fs *pflag.FlagSet) []helptext.Row {
	var rows []helptext.Row
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			rows = append(rows, helptext.Row{Name: flagName(f), About: flagDescription(f)})
		}
	})
	return rows
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
