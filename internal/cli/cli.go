// Package cli holds what every notesbench command shares of the command
// line, whatever it runs: bad usage and its exit codes, the checks of flags
// and of the files they name, the terminal, and the help as cobra's commands
// and pflag's flags declare it. cmd/notesbench declares the commands, their
// flags and what each runs; this package is how any of them speaks. With
// cmd, it is the one place that parses flags: below it, everything takes
// typed options.
package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
)

// Exit codes beside 0 (ok), 1 (a failure, a regression or an invalid
// payload) and 2 (bad usage). An interrupted run exits as a shell reports a
// process killed by the signal, 128 + its number (internal/interrupt).
const (
	// exitUsage: bad input, a flag, an argument or a file the user named.
	exitUsage = 2
	// ExitUnknown: a check (check, crash, audit) found no violation but
	// could not judge everything, as when it ran out of time.
	ExitUnknown = 3
)

// UsageError is bad input: a flag, an argument or a file the user named.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usage returns err as bad usage, as it is worded.
func Usage(err error) error { return UsageError{err} }

// Usagef returns a usage error naming the flag: Usagef("--seeds", "range
// %s is empty", r).
func Usagef(flag, format string, args ...any) error {
	return UsageError{fmt.Errorf("%s: %s", flag, fmt.Sprintf(format, args...))}
}

// UsageErr wraps err as a usage error naming the flag.
func UsageErr(flag string, err error) error {
	return UsageError{fmt.Errorf("%s: %w", flag, err)}
}

// ReachError is a store or server that could not be reached or used before
// anything ran: exit code 1, and nothing to replay.
type ReachError struct{ Err error }

func (e ReachError) Error() string { return e.Err.Error() }
func (e ReachError) Unwrap() error { return e.Err }

// UnknownError is a check that could not judge everything and found no
// violation: exit code ExitUnknown. An error that unwraps to one (an
// unfinished audit) exits so too.
type UnknownError struct{ Checks []string }

func (e UnknownError) Error() string {
	return "unknown: " + strings.Join(e.Checks, ", ") + " could not judge everything (give them more --timeout)"
}

// ExitCode is the exit code of a command that ended in err: exitUsage for
// bad usage, ExitUnknown for a check that could not judge, 1 otherwise.
func ExitCode(err error) int {
	var u UsageError
	var unknown UnknownError
	switch {
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &unknown):
		return ExitUnknown
	}
	return 1
}

// FlagError turns a field error (internal/field) into a usage error naming
// the flag of the same name (a field of a backend spec: store, target,
// note; call_timeout is --call-timeout); a field no flag of fs sets is named as
// it is, never as a flag that does not exist. Other errors pass unchanged.
func FlagError(fs *pflag.FlagSet, err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err
	}
	name := strings.ReplaceAll(fe.Field, "_", "-")
	if fs != nil && fs.Lookup(name) != nil {
		return UsageErr("--"+name, fe.Err)
	}
	return UsageError{fmt.Errorf("%s: %w", strings.ReplaceAll(fe.Field, "_", " "), fe.Err)}
}

// NoArgs refuses positional arguments, as a usage error; for a command
// that has commands of its own, the line names those the word may have
// meant (suggestions).
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := suggestions(cmd, args[0]); len(s) > 0 {
			msg += "; did you mean " + contract.Choice(s) + "?"
		}
		return UsageError{errors.New(msg)}
	}
	return nil
}

// suggestions are the commands of cmd that name may have been meant for:
// those within cobra's default distance of it, two edits, or that it
// begins. Cobra suggests them only for a command without Args of its own,
// which no command here is (NoArgs makes a stray word bad usage).
func suggestions(cmd *cobra.Command, name string) []string {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	return cmd.SuggestionsFor(name)
}

// FlagValueError says what is wrong with a flag's value in notesbench's
// words, "--kills: \"x\" is not a whole number", rather than pflag's, which
// hold Go's (strconv.ParseInt: parsing "x": invalid syntax). Other errors
// pass unchanged.
func FlagValueError(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	f, v := iv.GetFlag(), iv.GetValue()
	what := "a valid value"
	if f.Value.Type() == "string" {
		// A string flag refuses a value for a reason of its own: say it.
		if cause := errors.Unwrap(err); cause != nil && !errors.Is(cause, iv) {
			return fmt.Errorf("--%s: %v", f.Name, cause)
		}
	}
	switch f.Value.Type() {
	case "int", "int64", "uint64", "uint", "int32":
		what = "a whole number"
	case "float64", "float32":
		what = "a number"
	case "duration":
		what = "a duration (such as 4s or 60µs)"
	case "bool":
		what = "true or false"
	}
	return fmt.Errorf("--%s: %q is not %s", f.Name, v, what)
}
