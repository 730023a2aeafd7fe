package main

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/report"
)

// conformOptions holds the conform command's flags.
type conformOptions struct {
	app    *app
	target string
	format string
	note   string
	flags  *pflag.FlagSet
}

func newConformCmd(a *app, runF func(context.Context, *conformOptions) error) *cobra.Command {
	opts := &conformOptions{app: a}
	cmd := &cobra.Command{
		Use:   "conform --target TARGET",
		Short: "Check a Notes MCP server against the write contract, clause by clause",
		Long: `conform checks a server clause by clause through its tools alone: tools/list
carries the seven tools with expected_version and idempotency_key required; a
stale expected_version is refused with a conflict naming the current version and
changes nothing; a write without expected_version is refused by the schema; a
resend with the same key returns the first result and writes once; a create
whose reply was lost, resent with the same key, makes one tab; versions
increase, and differ for two writes within a millisecond; per-tab versions, when
the server has them, spare a reader of another tab; of concurrent writers with
the same expected version exactly one wins. Where the write-ups leave a clause
open (the same key with other arguments, or for another tool; which check comes
first) it reports what the server does, as info.

TARGET is stdio:COMMAND [ARGS] (spawned, one process per session),
http://HOST:PORT/PATH (streamable HTTP) or embedded (the built-in SQLite
contract). conform writes to a fresh Note of its own, made with the server's
notesbench_create_note; on a server without it, --note names an existing,
fresh Note to use.

A failed check prints the requests and replies that show it. conform exits 1
when any check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.target == "" {
				return usagef("--target", "required: stdio:COMMAND [ARGS], http://HOST:PORT/PATH or embedded")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConform(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.flags = fs
	fs.StringVar(&opts.target, "target", "", "the server: stdio:COMMAND [ARGS], http://HOST:PORT/PATH or embedded")
	fs.StringVar(&opts.format, "format", "", "output format: table, markdown or json (default table on a terminal, markdown otherwise)")
	fs.StringVar(&opts.note, "note", "", "an existing, fresh Note to write to, for a server that cannot create one")
	return cmd
}

// checksFailedError is a conform run with failed checks: exit code 1.
type checksFailedError struct {
	failed, checks int
	target         string
}

func (e checksFailedError) Error() string {
	return fmt.Sprintf("%d of %s failed against %s", e.failed, report.Count(e.checks, "check"), e.target)
}

func runConform(ctx context.Context, o *conformOptions) error {
	a := o.app
	format, err := conformFormat(a, o.format)
	if err != nil {
		return err
	}
	var target contract.Target
	if o.target == "embedded" {
		if o.note != "" {
			return usagef("--note", "names a Note on a server, not on the embedded store")
		}
		target = backend.Memory()
	} else {
		spec := backend.Spec{Target: o.target, Note: o.note, LenientSchemas: true, ClientVersion: notesbenchVersion()}
		if target, err = openTarget(ctx, o.flags, spec); err != nil {
			return err
		}
	}
	defer target.Close()
	rep, err := conform.Run(ctx, target, conform.Options{Name: o.target})
	if err != nil {
		return err
	}
	if format == report.FormatJSON {
		err = report.WriteJSON(a.stdout, rep)
	} else {
		err = report.RenderWidth(a.stdout, format, a.width, conformTables(rep)...)
	}
	if err != nil {
		return err
	}
	if rep.Failed > 0 {
		return checksFailedError{rep.Failed, len(rep.Checks), o.target}
	}
	return nil
}

func conformFormat(a *app, name string) (report.Format, error) {
	if name == "" {
		name = "markdown"
		if a.stdoutTTY {
			name = "table"
		}
	}
	f, err := report.ParseFormat(name)
	if err != nil || (f != report.FormatTable && f != report.FormatMarkdown && f != report.FormatJSON) {
		return "", usagef("--format", "unknown format %q for conform (want table, markdown or json)", name)
	}
	return f, nil
}

// conformTables is the verdict table and, when a check failed, the evidence.
func conformTables(rep conform.Report) []report.Table {
	verdicts := report.Table{
		Title:  "conform: " + rep.Target,
		Header: []string{"Check", "Outcome", "What was seen"},
		Notes: []string{
			rep.Describe,
			fmt.Sprintf("%d passed, %d failed, %d for information (clauses the write-ups leave open)", rep.Passed, rep.Failed, rep.Info),
		},
	}
	evidence := report.Table{Title: "Evidence of the failures", Header: []string{"Check", "Tool", "Request", "Reply"}}
	for _, c := range rep.Checks {
		verdicts.Rows = append(verdicts.Rows, []string{c.Name, string(c.Outcome), c.Detail})
		for _, ex := range c.Evidence {
			replyText := string(ex.Reply)
			if ex.Error != "" {
				replyText = ex.Error
			}
			evidence.Rows = append(evidence.Rows, []string{c.Name, ex.Tool, clip(string(ex.Request)), clip(replyText)})
		}
	}
	if len(evidence.Rows) == 0 {
		return []report.Table{verdicts}
	}
	return []report.Table{verdicts, evidence}
}

// clip shortens a long JSON text for a table cell to 160 characters;
// --format json has it whole.
func clip(s string) string {
	const limit = 160
	s = strings.ReplaceAll(s, "\n", `\n`)
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}
