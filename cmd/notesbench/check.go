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
	"github.com/notesbench/notesbench/report"
)

// checkOptions holds the check command's flags and arguments.
type checkOptions struct {
	app     *app
	files   []string
	format  string
	html    string
	timeout time.Duration
}

func newCheckCmd(a *app, runF func(context.Context, *checkOptions) error) *cobra.Command {
	opts := &checkOptions{app: a}
	cmd := &cobra.Command{
		Use:   "check HISTORY...",
		Short: "Judge recorded histories on their own: linearizability, versions, lost updates, duplicates, stale overwrites",
		Long: `check reads histories written with --history (or by notesbench crash) and judges
every run from what its clients sent and saw and the final state recorded at its
end, never from an experiment's counts:

  linearizability   each versioned register (the Note's version, or a tab's under
                    guard tab) under compare-and-set writes, checked with porcupine
  versions          no two committed writes of a register made the same version
  lost-updates      every acknowledged line, cell, tab and source is in the final state
  duplicates        no intent made more than one tab, source or line; a replayed
                    key returned its first result
  stale-overwrites  no write replaced content changed by another acknowledged
                    write after the read its content came from

It prints one verdict per check (ok, violated with the first offending
operations, or unknown when a check ran out of time) and the figures of every
run, and exits 1 when any check is violated.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("check needs at least one history file")}
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
	fs.StringVar(&opts.format, "format", "", "output format: table, markdown, csv or json (default table on a terminal, markdown otherwise)")
	fs.StringVar(&opts.html, "html", "", "write porcupine's page of the first linearizability violation to this file (nothing when there is none)")
	fs.DurationVar(&opts.timeout, "timeout", check.DefaultTimeout, "time each check may take; a check out of time says unknown")
	return cmd
}

// checkViolation is a check that found a violation: exit code 1.
type checkViolation struct{ checks []string }

func (e checkViolation) Error() string {
	return "violated: " + strings.Join(e.checks, ", ")
}

func runCheck(ctx context.Context, o *checkOptions) error {
	a := o.app
	format, err := outputFormat(a, o.format, []string{"table", "markdown", "csv", "json"})
	if err != nil {
		return err
	}
	if o.timeout <= 0 {
		return usagef("--timeout", "must be more than 0")
	}
	if o.html != "" {
		if err := checkHTMLWritable(o.html); err != nil {
			return usageErr("--html", err)
		}
	}
	var hs []*history.History
	for _, f := range o.files {
		h, err := history.ReadFile(f)
		if err != nil {
			return usageError{err}
		}
		hs = append(hs, h)
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
	if format == report.FormatJSON {
		err = report.WriteJSON(a.stdout, checkJSON{Command: "check", Histories: o.files, TimeoutS: o.timeout.Seconds(),
			Checks: rep.Checks, Runs: rep.Runs, HTML: html, Version: notesbenchVersion()})
	} else {
		err = report.RenderWidth(a.stdout, format, a.width, tables...)
	}
	if err != nil {
		return err
	}
	var violated []string
	for _, c := range rep.Checks {
		if c.Verdict == check.Violated {
			violated = append(violated, c.Check)
		}
	}
	if len(violated) > 0 {
		return checkViolation{violated}
	}
	return nil
}

// checkJSON is the JSON form of a check: the verdicts and every run's figures.
type checkJSON struct {
	Command   string            `json:"command"`
	Histories []string          `json:"histories"`
	TimeoutS  float64           `json:"timeout_s"`
	Checks    []check.Result    `json:"checks"`
	Runs      []check.RunResult `json:"runs"`
	HTML      string            `json:"html,omitempty"`
	Version   string            `json:"notesbench_version"`
}
