package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
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
	format, err := outputFormat(a, o.format, false)
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
	tables := checkTables(rep, "Checks of "+strings.Join(o.files, ", "), len(o.files) > 1, o.html)
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

// checkTables builds the verdict table and the table of runs; files says to
// name each run's file, html is the --html flag.
func checkTables(rep *check.Report, title string, files bool, html string) []report.Table {
	verdicts := report.Table{
		Title:  title,
		Header: []string{"Check", "Verdict", "Judged", "Violations", "Not judged"},
	}
	for _, c := range rep.Checks {
		verdicts.Rows = append(verdicts.Rows, []string{c.Check, string(c.Verdict), strconv.Itoa(c.Judged), strconv.Itoa(c.Violations), strconv.Itoa(c.Unjudged)})
		for _, f := range c.First {
			verdicts.Notes = append(verdicts.Notes, c.Check+": "+f)
		}
		if c.Reason != "" && c.Verdict != check.Violated {
			verdicts.Notes = append(verdicts.Notes, c.Check+" "+string(c.Verdict)+": "+c.Reason)
		}
	}
	verdicts.Notes = append(verdicts.Notes, "judged: registers (linearizability), committed writes (versions, stale-overwrites), acknowledged intents (lost-updates), intents (duplicates)")
	switch {
	case html != "" && rep.Visualization != nil:
		verdicts.Notes = append(verdicts.Notes, "porcupine's page of the first linearizability violation: "+html)
	case html != "":
		verdicts.Notes = append(verdicts.Notes, "no linearizability violation: nothing written to "+html)
	}

	runs := report.Table{
		Title: "Runs",
		Header: []string{"Run", "Variant", "Policy", "Calls", "Linearizable", "Version collisions",
			"Lost (per editor)", "Duplicates", "Replay mismatches", "Stale overwrites"},
	}
	for _, r := range rep.Runs {
		var lost []string
		for _, e := range r.Editors {
			if e.Acknowledged > 0 {
				lost = append(lost, fmt.Sprintf("%s %d of %d", e.Editor, e.Lost, e.Acknowledged))
			}
		}
		v := r.Variant
		name := r.Run
		if files {
			name = r.File + ": " + name
		}
		runs.Rows = append(runs.Rows, []string{name, fmt.Sprintf("%s, %s, %s", v.Guard, v.VersionFormat, v.Order), r.Policy,
			strconv.Itoa(r.Calls), string(r.Linearizable), strconv.Itoa(r.VersionCollisions), strings.Join(lost, ", "),
			strconv.Itoa(r.Duplicates), strconv.Itoa(r.ReplayMismatches), strconv.Itoa(r.StaleOverwrites)})
	}
	return []report.Table{verdicts, runs}
}
