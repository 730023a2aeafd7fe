package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// profilesOptions holds the profiles command's arguments: show names one.
type profilesOptions struct {
	app    *app
	show   string
	schema bool
}

func newProfilesCmd(a *app, runF func(context.Context, *profilesOptions) error) *cobra.Command {
	opts := &profilesOptions{app: a}
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List the built-in profiles: the server and version each was written for, its write and its guard",
		Long: `profiles lists the built-in profiles, which map the experiments onto a
server's own tools (--profile NAME with --target): each one's name, the server
and version it was written for and tested against, the tool it writes with and
how (the whole text, a patch, an append), and whether that write is checked
against a version. profiles show NAME prints one, as it is built in: a start for
a profile of one's own (--profile FILE).

See docs/profiles.md.`,
		Example: cli.Examples([]string{
			"notesbench profiles",
			"notesbench profiles show filesystem > my-server.json",
		}),
		Args: cli.NoArgs,
		RunE: cli.Runner(opts, runF, runProfiles),
	}
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a built-in profile, to start a profile of one's own from",
		Long: `profiles show NAME prints the built-in profile NAME as it is built in, a JSON
file of the profile format: a start for a profile of one's own, given with
--profile FILE. See docs/profiles.md for the format.`,
		Example: cli.Examples([]string{
			"notesbench profiles show filesystem-edit",
			"notesbench profiles show memory > my-graph.json",
		}),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.Usage(fmt.Errorf("profiles show takes one built-in profile's name, %d given (built-in: %s)", len(args), builtinList()))
			}
			opts.show = args[0]
			return nil
		},
		RunE: cli.Runner(opts, runF, runProfiles),
	}
	schema := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the profile format, to check a profile of one's own in an editor",
		Long: `profiles schema prints the JSON Schema of the profile format (draft 2020-12), as
notesbench checks every profile against it: point an editor's JSON checking at it
("$schema", or the editor's own setting) to have a profile of one's own checked as
it is written. notesbench checks more than the schema says (the variables a template
may name, the members of a newer format_version): --profile FILE says what.`,
		Example: cli.Examples([]string{
			"notesbench profiles schema > profile.schema.json",
		}),
		Args: cli.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.schema = true
			return cli.Runner(opts, runF, runProfiles)(c, args)
		},
	}
	cmd.AddCommand(show, schema)
	return cmd
}

func builtinList() string { return strings.Join(profile.Builtins(), ", ") }

// runProfiles prints the list of the built-in profiles, or the one named.
func runProfiles(_ context.Context, o *profilesOptions) error {
	w := o.app.stdout
	if o.schema {
		_, err := w.Write(profile.Schema())
		return err
	}
	if o.show != "" {
		data, err := profile.BuiltinJSON(o.show)
		var pe *profile.Error
		if errors.As(err, &pe) {
			return cli.Usage(fmt.Errorf("profiles show: %s: %v", o.show, pe.Err))
		}
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSERVER\tWRITE\tVERSION CHECK")
	for _, name := range profile.Builtins() {
		p, err := profile.Builtin(name)
		if err != nil {
			return err // a built-in profile that does not load is a defect of the build
		}
		write, check := "- (read-only)", "-"
		if w := p.Write; w != nil {
			write, check = fmt.Sprintf("%s (%s)", w.Tool, w.Mode()), "no"
			if w.VersionCheck {
				check = "yes"
			}
		}
		server := p.Server
		if server == "" {
			server = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, server, write, check)
	}
	return tw.Flush()
}
