package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// outFlags are the output flags of every experiment.
type outFlags struct {
	format         formatFlag
	out            string
	replications   int
	baseline       string
	updateBaseline string

	stored    *results.Baseline // the baseline, read by check
	realClock bool              // the run is on the real clock: check invariants and ranges
	flags     *pflag.FlagSet    // the command's flags
}

// register registers the output flags an experiment's Info asks for: the
// format and --out always, --replications when it has verdicts resting on
// replications, the baseline flags when its result can be a baseline.
func (o *outFlags) register(cmd *cobra.Command, info experiment.Info, holds report.Content) {
	fs := cmd.Flags()
	o.flags = fs
	o.format.register(cmd, holds)
	fs.StringVar(&o.out, "out", "", "also write the JSON result to this file (written whole or not at all)")
	if info.Replications != experiment.NoReplications {
		fs.IntVar(&o.replications, "replications", info.Replications,
			"replications of the published setup behind each verdict (0: no verdicts)")
	}
	if info.Baseline {
		fs.StringVar(&o.baseline, "baseline", "", "compare with a stored JSON result and exit 1 on any difference (virtual clock: exact counts; real clock: invariants and prediction intervals from the recorded replications, false-alarm rate ≤ 1 % per run)")
		fs.StringVar(&o.updateBaseline, "update-baseline", "", "write this run's JSON result as the new baseline file")
	}
}

// check validates the output flags before anything runs, so that bad input
// never costs a run and never leaves a partial file.
func (o *outFlags) check(a *app, experimentName string) (report.Format, error) {
	f, err := o.format.parse(a)
	if err != nil {
		return "", err
	}
	if err := (experiment.Options{Replications: o.replications}).Validate(); err != nil {
		var pe *experiment.ParamError
		errors.As(err, &pe)
		return "", cli.UsageErr("--"+pe.Param, pe.Err)
	}
	if err := checkResultFile("--out", o.out); err != nil {
		return "", err
	}
	if err := checkResultFile("--update-baseline", o.updateBaseline); err != nil {
		return "", err
	}
	if err := cli.NotInputs([]cli.File{{Flag: "--baseline", Path: o.baseline}}, cli.File{Flag: "--out", Path: o.out}); err != nil {
		return "", err
	}
	if o.baseline != "" {
		if o.stored, err = results.ReadBaseline(o.baseline, experimentName); err != nil {
			return "", cli.UsageErr("--baseline", err)
		}
	}
	return f, nil
}

// formatFlag is --format: one of the formats of what the command's output
// holds (report.FormatNames), or, when it names none, table on a terminal
// and markdown otherwise.
type formatFlag struct {
	name  string
	holds report.Content
}

// What the outputs of most commands hold, and so the formats their --format
// offers: tables and the JSON result (table, markdown, json), and CSV
// records besides (csv).
var (
	tablesOrJSON = report.ContentTables | report.ContentResult
	withCSV      = tablesOrJSON | report.ContentRecords
)

// register registers the flag on cmd, taking one of the formats of holds.
func (f *formatFlag) register(cmd *cobra.Command, holds report.Content) {
	f.holds = holds
	formats := report.FormatNames(holds)
	cmd.Flags().StringVar(&f.name, "format", "", "output format: "+contract.Choice(formats)+" (default table on a terminal, markdown otherwise)")
	cli.CompleteFlag(cmd, "format", false, formats...)
}

// parse returns the format the flag names.
func (f formatFlag) parse(a *app) (report.Format, error) {
	name := f.name
	if name == "" {
		name = string(report.FormatMarkdown)
		if a.stdoutTTY {
			name = string(report.FormatTable)
		}
	}
	if formats := report.FormatNames(f.holds); !slices.Contains(formats, name) {
		return "", cli.Usagef("--format", "unknown format %q (want %s)", name, contract.Choice(formats))
	}
	return report.Format(name), nil
}

// checkResultFile makes sure the JSON result the flag names, if any, can be
// written (see checkWritable), as a usage error naming the flag.
func checkResultFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := results.CheckWritable(path); err != nil {
		return cli.UsageErr(flag, err)
	}
	return nil
}

// writeResult writes result as JSON to path, whole or not at all; no path,
// no file.
func writeResult(path string, result any) error {
	if path == "" {
		return nil
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.WriteJSON(w, result) })
}

// emit prints an outcome in format f, writes the JSON files and checks the
// baseline.
func (o *outFlags) emit(a *app, f report.Format, out *experiment.Findings) error {
	if err := report.Write(a.stdout, f, a.width, report.Output{Section: out.Section, Result: out.JSON, GoBench: out.GoBench}); err != nil {
		return err
	}
	if err := writeResult(o.out, out.JSON); err != nil {
		return err
	}
	if err := writeResult(o.updateBaseline, out.JSON); err != nil {
		return err
	}
	if o.stored == nil {
		return nil
	}
	note, err := o.stored.Check(out.Report, o.realClock, out.Invariants, out.Rows)
	if note != "" {
		fmt.Fprintln(a.stderr, "notesbench: baseline: "+note)
	}
	return baselineError(err)
}

// checkParameters returns a usage error when the baseline, if any, was
// recorded with other parameters than config: its figures cannot be
// compared. It runs before the experiment, so a mismatch costs nothing.
func (o *outFlags) checkParameters(config any) error {
	if o.stored == nil {
		return nil
	}
	return baselineError(o.stored.CheckParameters(config, o.realClock, sim.FormatSeeds))
}

// baselineError is an error of a comparison with --baseline: a regression as
// it is, a baseline that cannot be compared as bad usage.
func baselineError(err error) error {
	var reg *results.Regression
	if err == nil || errors.As(err, &reg) {
		return err
	}
	return cli.UsageErr("--baseline", err)
}

// printResult writes a result to stdout in format f: the JSON result, the CSV
// records of its section, or its tables fitted to the terminal.
func printResult(a *app, f report.Format, result any, section report.Section) error {
	return report.Write(a.stdout, f, a.width, report.Output{Section: section, Result: result})
}

// progress returns a progress callback that redraws one line on stderr when it
// is a terminal, and nil otherwise. Once a run is seen to take more than a
// minute, the line says about how long it has left.
func progress(a *app, what string) func(done, total int) {
	if !a.stderrTTY {
		return nil
	}
	start := time.Now()
	return func(done, total int) {
		fmt.Fprintf(a.stderr, "\r%s\033[K", report.ProgressLine(what, done, total, time.Since(start)))
		if done == total {
			fmt.Fprint(a.stderr, "\r\033[K")
		}
	}
}
