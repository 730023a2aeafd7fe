// Package helptext lays out a command's help, given as plain text and rows
// (Help), to a terminal's width: its text wrapped paragraph by paragraph,
// its examples continued as a shell continues a command (so that pasted
// they still run), its subcommands and flags in two columns. It knows no
// command library and nothing of notesbench: cmd reads its commands and
// flags into a Help, and the width is the caller's.
package helptext
