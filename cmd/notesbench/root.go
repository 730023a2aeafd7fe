package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/experiments/validate"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/interrupt"
	"github.com/notesbench/notesbench/internal/scratch"
	"github.com/spf13/cobra"
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
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, stdoutTTY: cli.IsTerminal(stdout), stderrTTY: cli.IsTerminal(stderr),
		args: args, width: cli.Width(stdout), scratch: tmp}
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
	code := cli.ExitCode(err)
	var invalid invalidPayloadError
	var violation *check.ViolationError
	var reach cli.ReachError
	if code == 1 && !errors.As(err, &invalid) && !errors.As(err, &violation) && !errors.As(err, &reach) {
		// A failed or regressed run names its seeds and flags, so it can be
		// replayed; passwords in URLs stay out of it.
		fmt.Fprintf(stderr, "notesbench: replay with: %s\n", cli.CommandLine(args))
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
		Example: cli.Examples([]string{
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
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { fmt.Fprint(a.stdout, cli.HelpOf(cmd).Render(a.width)) })
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
						return cli.NoArgs(cmd, []string{w})
					}
				}
			}
		}
		return cli.Usage(cli.FlagValueError(err))
	})
	root.Args = cli.NoArgs
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return cli.RefuseEmpty(cmd) }
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
			c.Args = cli.NoArgs
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
