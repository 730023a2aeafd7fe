package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// checkOptions holds the check command's flags and arguments.
type checkOptions struct {
	app     *app
	files   []string
	format  formatFlag
	out     string
	html    string
	timeout time.Duration
}

func newCheckCmd(a *app, runF func(context.Context, *checkOptions) error) *cobra.Command {
	opts := &checkOptions{app: a}
	cmd := &cobra.Command{
		Use:   "check HISTORY...",
		Short: "Judge recorded histories on their own: linearizability, versions, lost updates, duplicates, stale overwrites",
		Long: `check reads histories written with --history (or by notesbench crash; - reads
standard input) and judges every run from what its clients sent and saw and the
final state recorded at its end, never from an experiment's counts:

  linearizability   each versioned register (the Note's version, or a tab's under
                    guard tab) under compare-and-set writes, checked with porcupine
  versions          no two committed writes of a register made the same version
  lost-updates      every acknowledged line, cell, tab and source is in the final state
  duplicates        no intent made more than one tab, source or line; a replayed
                    key returned its first result
  stale-overwrites  no write replaced content changed by another acknowledged
                    write after the read its content came from

Calls that ended info (a lost reply, a timeout, a dead server) may or may not
have taken effect, and are judged so; a conflict whose reply named no current
version only says the version differed. Each violation named is followed by
the faults injected into its run before it.

It prints one verdict per check (ok; violated, with the first offending
operations; unknown, when a check ran out of time or lacked what it needed;
n/a, when the check is no rule of the runs, as versions is not of digest and
opaque versions) and the figures of every run. It exits 1 when any check is
violated, else 3 when any is unknown, as every check is when the histories
hold no run (nothing to judge) or one was cut short (it lacks its end line; a
violation in what it holds is still one). n/a is not unknown: it leaves the
exit code as it is.

On a history notesbench serve --history recorded, it also judges every
client, named by its MCP clientInfo, from what the server saw:

  person-lines      every line the person (serve --person) appended is in
                    the final text; each one missing is named with the
                    client write that dropped it
  stale-writes      no client committed a text built on an older version
                    than the one it sent (the fresh version, the old text)
  key-changes       no client resent a write under a new idempotency key
                    after a reply that said it committed, or said nothing
  tab-references    no client named a tab by label or position

and prints a table of the agents (conflicts seen, re-reads, re-applies,
refreshes, same-key resends), each careful or careless; a careless one is
named in the verdict, exit 1.

See docs/histories.md and docs/agents.md.`,
		Example: cli.Examples([]string{
			"notesbench race --clock virtual --history r.jsonl && notesbench check r.jsonl",
			"notesbench check --html first-violation.html r.jsonl",
			"notesbench crash --history c.jsonl; notesbench check --format json --out verdicts.json c.jsonl",
			"notesbench serve --http 127.0.0.1:8765 --person every=2s --history h.jsonl   # stop it, then: notesbench check h.jsonl",
		}),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usage(errors.New("check needs at least one history file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCheck(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	opts.format.register(cmd, withCSV)
	fs.StringVar(&opts.out, "out", "", "also write the JSON result to this file (written whole or not at all)")
	fs.StringVar(&opts.html, "html", "", "write porcupine's page of the first linearizability violation to this file, with the faults of its run on the timeline (nothing when there is none)")
	fs.DurationVar(&opts.timeout, "timeout", check.DefaultTimeout, "time each check may take; a check out of time says unknown")
	return cmd
}

// incompleteError is histories that leave every verdict unknown (a
// *check.IncompleteError): exit code 3, as cli.UnknownError.
type incompleteError struct{ error }

func (e incompleteError) Unwrap() error { return cli.UnknownError{} }

func runCheck(ctx context.Context, o *checkOptions) error {
	a := o.app
	format, err := o.format.parse(o.app)
	if err != nil {
		return err
	}
	if o.timeout <= 0 {
		return cli.Usagef("--timeout", "must be more than 0")
	}
	if err := checkResultFile("--out", o.out); err != nil {
		return err
	}
	if o.html != "" {
		if err := checkHTMLWritable(o.html); err != nil {
			return cli.UsageErr("--html", err)
		}
	}
	if err := cli.DistinctOutputs(cli.File{Flag: "--out", Path: o.out}, cli.File{Flag: "--html", Path: o.html}); err != nil {
		return err
	}
	if err := cli.NotInputs(cli.Arguments(o.files), cli.File{Flag: "--out", Path: o.out}, cli.File{Flag: "--html", Path: o.html}); err != nil {
		return err
	}
	if err := cli.DistinctFiles(o.files, "every run of it would be counted twice"); err != nil {
		return err
	}
	hs, err := history.ReadAll(ctx, a.stdin, o.files)
	if err != nil {
		if ctx.Err() == nil { // a history that does not read is bad input
			err = cli.Usage(err)
		}
		return err
	}
	rep, err := check.Run(ctx, hs, check.Options{Timeout: o.timeout, Visualize: o.html != ""})
	if err != nil {
		return err
	}
	tables := report.CheckTables(rep, "Checks of "+strings.Join(o.files, ", "), len(o.files) > 1, o.html)
	html := "" // the page's file, once written
	if o.html != "" && rep.Visualization != nil {
		err := atomicfile.Write(o.html, 0o644, func(w io.Writer) error {
			_, err := w.Write(rep.Visualization)
			return err
		})
		if err != nil {
			return err
		}
		html = o.html
	}
	result := results.NewCheckRecord(results.CheckConfig{Histories: o.files, TimeoutS: o.timeout.Seconds(), HTML: html}, rep, notesbenchVersion())
	err = printResult(a, format, result, report.Section{Main: tables, Records: report.CheckRecords(rep)})
	if err != nil {
		return err
	}
	if err := writeResult(o.out, result); err != nil {
		return err
	}
	return checkOutcome(rep, hs)
}

// checkOutcome maps what a check ends with (check.Conclude) to an exit
// code: a violation 1; histories that leave every verdict unknown, or checks
// that could not judge everything, 3.
func checkOutcome(rep *results.CheckReport, hs []*history.History) error {
	err := check.Conclude(rep, hs)
	var unjudged *check.UnjudgedError
	var incomplete *check.IncompleteError
	switch {
	case errors.As(err, &unjudged):
		return cli.UnknownError{Checks: unjudged.Checks}
	case errors.As(err, &incomplete):
		return incompleteError{err}
	}
	return err // nil, or a *check.ViolationError: exit 1, with no replay line
}
