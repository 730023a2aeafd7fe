package main

import (
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/report"
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
	b.WriteString(report.WrapText(text, width))
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
			b.WriteString(report.WrapLine(line, width) + "\n")
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
			b.WriteString(report.Hanging(head, c.Short, width) + "\n")
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
		b.WriteString(report.WrapLine(line, width) + "\n")
	}
	return b.String()
}
