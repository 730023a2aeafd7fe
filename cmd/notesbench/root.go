package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/experiments/validate"
	"github.com/notesbench/notesbench/internal/interrupt"
	"github.com/notesbench/notesbench/internal/scratch"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// version is the notesbench version, set at build time with
// -ldflags "-X main.version=v1.2.3"; otherwise it comes from the module build info.
var version = ""

func notesbenchVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// app is what every command shares: its streams and what they are connected to.
type app struct {
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	stdoutTTY bool
	stderrTTY bool
	// args is the command line after the program's name, for the record.
	args []string
	// width is the terminal's width in columns, which the table format fits.
	width int
	// scratch is the run's scratch folder, made on first use.
	scratch *scratch.Dir
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// defaultWidth is the width the table format fits when the terminal's is
// unknown.
const defaultWidth = 80

// terminalWidth returns the columns the table format must fit: $COLUMNS when
// it holds a positive number, else the width of the terminal stdout is, else
// defaultWidth.
func terminalWidth(stdout io.Writer) int {
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if f, ok := stdout.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return defaultWidth
}

// Exit codes beside 0 (ok), 1 (a failure, a regression or an invalid
// payload) and 2 (bad usage): an interrupted run exits as a shell reports a
// process killed by the signal, 128 + its number.
const (
	// exitUnknown: a check (check, crash) found no violation but could not
	// judge everything, as when it ran out of time.
	exitUnknown = 3
)

// run executes notesbench with args and returns the process exit code: 0 ok,
// 1 failure or regression, 2 bad usage, 130 interrupted by Ctrl-C (SIGINT),
// 143 terminated (SIGTERM).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(args, stdin, stdout, stderr, experiments.All())
}

// runWith is run with a command for each of experiments.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer, experiments []experiment.Descriptor) int {
	tmp := &scratch.Dir{}
	defer tmp.Remove()
	in := interrupt.Watch(tmp.Remove)
	defer in.Stop()
	ctx := in.Context()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, stdoutTTY: isTerminal(stdout), stderrTTY: isTerminal(stderr),
		args: args, width: terminalWidth(stdout), scratch: tmp}
	root := newRootCmdWith(a, experiments)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var partial measuredError
	if code, ok := in.ExitCode(); ok && !errors.As(err, &partial) {
		// Whatever the error says, the signal caused it: an interrupted run is
		// not a failure, and nothing it would have written was.
		what := "interrupted"
		if code == interrupt.ExitTerminate {
			what = "terminated"
		}
		fmt.Fprintln(stderr, "notesbench: "+what)
		return code
	}
	fmt.Fprintf(stderr, "notesbench: %v\n", err)
	code := exitCode(err)
	var invalid invalidPayloadError
	var violation checkViolation
	var reach reachError
	if code == 1 && !errors.As(err, &invalid) && !errors.As(err, &violation) && !errors.As(err, &reach) {
		// A failed or regressed run names its seeds and flags, so it can be
		// replayed; passwords in URLs stay out of it.
		fmt.Fprintf(stderr, "notesbench: replay with: %s\n", commandLine(args))
	}
	return code
}

// measuredError is the verdict of a run that wrote what it measured, also
// when a signal ended it early (an audit marked unfinished): its own exit
// code stands, not the signal's.
type measuredError interface {
	error
	measured()
}

// urlPassword matches the password of a URL's user information.
var urlPassword = regexp.MustCompile(`(://[^:/@\s]+):[^@\s]+@`)

// redactPasswords replaces the password of every URL in s with ****.
func redactPasswords(s string) string { return urlPassword.ReplaceAllString(s, "$1:****@") }

// commandLine writes notesbench with args as a POSIX shell reads it back:
// each argument quoted when it holds anything but letters, digits and
// -_./:=@%+,, passwords in URLs left out. Pasted into a shell, it runs the
// same command.
func commandLine(args []string) string {
	words := []string{"notesbench"}
	for _, a := range args {
		words = append(words, shell.Quote(redactPasswords(a)))
	}
	return strings.Join(words, " ")
}

// reachError is a store or server that could not be reached or used before
// anything ran: exit code 1, and nothing to replay.
type reachError struct{ err error }

func (e reachError) Error() string { return e.err.Error() }
func (e reachError) Unwrap() error { return e.err }

// usageError is bad input: a flag, an argument or a file the user named.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error naming the flag: usagef("--seeds", "range %s is empty", r).
func usagef(flag, format string, args ...any) error {
	return usageError{fmt.Errorf("%s: %s", flag, fmt.Sprintf(format, args...))}
}

// usageErr wraps err as a usage error naming the flag.
func usageErr(flag string, err error) error {
	return usageError{fmt.Errorf("%s: %w", flag, err)}
}

func exitCode(err error) int {
	var u usageError
	var unknown unknownError
	switch {
	case errors.As(err, &u):
		return 2
	case errors.As(err, &unknown):
		return exitUnknown
	}
	return 1
}

// noArgs refuses positional arguments, as a usage error; for a command
// that has commands of its own, the line names those the word may have
// meant (suggestions).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := suggestions(cmd, args[0]); len(s) > 0 {
			msg += "; did you mean " + contract.Choice(s) + "?"
		}
		return usageError{errors.New(msg)}
	}
	return nil
}

// suggestions are the commands of cmd that name may have been meant for:
// those within cobra's default distance of it, two edits, or that it
// begins. Cobra suggests them only for a command without Args of its own,
// which no command here is (noArgs makes a stray word bad usage).
func suggestions(cmd *cobra.Command, name string) []string {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	return cmd.SuggestionsFor(name)
}

// emptyMeansKey is the annotation of a flag of text whose empty value means
// something of its own (serve --note "": no Note); the annotation says what.
const emptyMeansKey = "notesbench_empty_means"

// emptyMeans declares that the flag called name in fs takes an empty value,
// meaning what: refuseEmpty lets it through.
func emptyMeans(fs *pflag.FlagSet, name, what string) {
	if err := fs.SetAnnotation(name, emptyMeansKey, []string{what}); err != nil {
		panic(err) // no such flag: a mistake in the declaration
	}
}

// refuseEmpty refuses a flag of text given with an empty value, unless its
// declaration says what an empty value means (emptyMeans). An empty
// --target, --profile or --history is most often a script's variable that
// was never set: taken as the default, it would run something else than
// was asked (the embedded store instead of the server) and pass. It is the
// one such check: the root runs it for every command before it runs.
func refuseEmpty(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil || f.Annotations[emptyMeansKey] != nil || !emptyText(f) {
			return
		}
		err = usagef("--"+f.Name, "empty: give a value, or leave the flag out")
		if def := f.DefValue; def != "" && def != "[]" {
			err = usagef("--"+f.Name, "empty: give a value, or leave the flag out (default %s)", redactPasswords(def))
		}
	})
	return err
}

// emptyText reports whether f takes text, or a list, and holds none.
func emptyText(f *pflag.Flag) bool {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return len(s.GetSlice()) == 0
	}
	switch f.Value.Type() {
	case "string", "strings":
		return f.Value.String() == ""
	}
	return false
}

// newRootCmdWith returns the root command with a command for each of
// experiments: the one place commands are registered.
func newRootCmdWith(a *app, experiments []experiment.Descriptor) *cobra.Command {
	root := &cobra.Command{
		Use:   "notesbench",
		Short: "Measure what the Notes write contract prevents, by scripted agent-versus-person races",
		Long: `notesbench rebuilds the osFoundry Notes write contract (expected_version and
idempotency_key on every write), races a scripted agent ("claude") against a
scripted person ("human"), and counts lost updates, conflicts, duplicates and
per-write latency, beside the published figures. The contract runs on the
embedded SQLite store by default, on PostgreSQL with --store, or on any MCP
server with --target; serve offers it over MCP, conform checks a server clause
by clause, and check judges a recorded history.`,
		Example: examples([]string{
			"notesbench race --clock virtual      # the lost-update race, deterministic",
			"notesbench reproduce --quick         # every published figure judged",
			"notesbench conform --target 'stdio:my-server'",
		}),
		Version:       notesbenchVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { fmt.Fprint(a.stdout, helpOf(cmd).Render(a.width)) })
	// Cobra's own complaints about the command line are usage errors: bad
	// flags come through the flag error function, stray arguments and unknown
	// commands through each command's Args.
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// A mistyped command makes the flags after it unknown (notesbench
		// rase --clock virtual): the command is the mistake to name.
		if cmd.HasAvailableSubCommands() {
			if _, rest, ferr := root.Find(a.args); ferr == nil {
				for _, w := range rest {
					if !strings.HasPrefix(w, "-") {
						return noArgs(cmd, []string{w})
					}
				}
			}
		}
		return usageError{flagValueError(err)}
	})
	root.Args = noArgs
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return refuseEmpty(cmd) }
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	for _, d := range experiments {
		if d == validate.Experiment {
			root.AddCommand(newValidateCmd(a, nil))
			continue
		}
		root.AddCommand(newExperimentCmd(a, d, nil))
	}
	// Cobra's own completion command takes one shell: anything else is bad
	// usage, not a reason to print help and succeed.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = noArgs
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
	root.AddCommand(
		newMergeCmd(a, experiments, nil),
		newReproduceCmd(a, experiments, nil),
		newServeCmd(a, nil),
		newConformCmd(a, nil),
		newCheckCmd(a, nil),
		newCrashCmd(a, nil),
		newProfilesCmd(a, nil),
		newAuditCmd(a, nil),
		newRelayCmd(a),
	)
	return root
}

// runner returns a command's RunE: runF when a test gave one (to see the
// options the flags made), run otherwise.
func runner[O any](opts O, runF, run func(context.Context, O) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if runF != nil {
			return runF(cmd.Context(), opts)
		}
		return run(cmd.Context(), opts)
	}
}

// flagValueError says what is wrong with a flag's value in notesbench's
// words, "--kills: \"x\" is not a whole number", rather than pflag's, which
// hold Go's (strconv.ParseInt: parsing "x": invalid syntax). Other errors
// pass unchanged.
func flagValueError(err error) error {
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

// closing closes what a command opened, as the command ends: a failure to
// close (a store's last checkpoint, a server's documents left behind, a
// folder not removed) is the command's error when it had none, and said on
// stderr, one line, when it had one of its own.
func closing(a *app, what string, close func() error, err *error) {
	cerr := close()
	switch {
	case cerr == nil:
	case *err == nil:
		*err = fmt.Errorf("closing %s: %w", what, cerr)
	default:
		fmt.Fprintf(a.stderr, "notesbench: closing %s: %v\n", what, cerr)
	}
}
