// Package helptext lays out a cobra command's help to a terminal's width:
// its text wrapped paragraph by paragraph, its examples continued as a shell
// continues a command (so that pasted they still run), its subcommands and
// flags in two columns. It knows cobra and pflag, not notesbench: the
// commands, their texts and the width are the caller's.
package helptext
