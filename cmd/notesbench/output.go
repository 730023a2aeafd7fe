package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// outFlags are the output flags of every experiment.
type outFlags struct {
	format         string
	out            string
	replications   int
	baseline       string
	updateBaseline string

	// history, when the command records one, is written after the run and
	// before the output, so that a regression still leaves it.
	history *historyFlags

	baselineJSON []byte         // the baseline, read by check
	realClock    bool           // the run is on the real clock: check invariants and ranges
	flags        *pflag.FlagSet // the command's flags, to name the flag of a config field
}

// noReplications registers no --replications flag, for experiments whose
// verdicts need none.
const noReplications = -1

func (o *outFlags) register(fs *pflag.FlagSet, replications int) {
	o.flags = fs
	fs.StringVar(&o.format, "format", "", "output format: table, markdown, csv or json (default table on a terminal, markdown otherwise)")
	fs.StringVar(&o.out, "out", "", "also write the JSON result to this file (written whole or not at all)")
	if replications != noReplications {
		fs.IntVar(&o.replications, "replications", replications,
			"replications of the published setup behind each verdict (0: no verdicts)")
	}
	fs.StringVar(&o.baseline, "baseline", "", "compare with a stored JSON result and exit 1 on any difference (virtual clock: exact counts; real clock: invariants and prediction intervals from the recorded replications, false-alarm rate ≤ 1 % per run)")
	fs.StringVar(&o.updateBaseline, "update-baseline", "", "write this run's JSON result as the new baseline file")
}

// check validates the output flags before anything runs, so that bad input
// never costs a run and never leaves a partial file.
func (o *outFlags) check(a *app, experiment string) (report.Format, error) {
	f, err := outputFormat(a, o.format, false)
	if err != nil {
		return "", err
	}
	if o.replications < 0 {
		return "", usagef("--replications", "must be 0 or more")
	}
	if err := checkResultFile("--out", o.out); err != nil {
		return "", err
	}
	if err := checkResultFile("--update-baseline", o.updateBaseline); err != nil {
		return "", err
	}
	if o.baseline != "" {
		b, err := readResult(o.baseline)
		if err != nil {
			return "", usageErr("--baseline", err)
		}
		var head struct {
			Experiment string `json:"experiment"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return "", usagef("--baseline", "%s is not a notesbench JSON result: %v", o.baseline, err)
		}
		if head.Experiment != experiment {
			return "", usagef("--baseline", "%s holds a %q result, not %s", o.baseline, head.Experiment, experiment)
		}
		o.baselineJSON = b
	}
	return f, nil
}

// outputFormat returns the format --format names or, when it names none,
// table on a terminal and markdown otherwise. gobench is for the commands
// that print Go benchmark lines; the others refuse it.
func outputFormat(a *app, name string, gobench bool) (report.Format, error) {
	if name == "" {
		name = "markdown"
		if a.stdoutTTY {
			name = "table"
		}
	}
	f, err := report.ParseFormat(name)
	if err == nil && f == report.FormatGoBench && !gobench {
		err = errors.New(`unknown format "gobench" for this command (want table, markdown, csv or json)`)
	}
	if err != nil {
		return "", usageErr("--format", err)
	}
	return f, nil
}

// checkResultFile makes sure the JSON result the flag names, if any, can be
// written (see checkWritable), as a usage error naming the flag.
func checkResultFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := checkResultWritable(path); err != nil {
		return usageErr(flag, err)
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

// emit prints the report in the chosen format, writes the JSON files and
// checks the baseline. rows are the report's rows, typed, for the real-clock
// checks.
func emit[R results.Row](a *app, o *outFlags, f report.Format, rep results.Report, rows []R, section report.Section) error {
	if err := printResult(a, f, rep, section); err != nil {
		return err
	}
	if err := writeResult(o.out, rep); err != nil {
		return err
	}
	if err := writeResult(o.updateBaseline, rep); err != nil {
		return err
	}
	if o.baselineJSON == nil {
		return nil
	}
	if o.realClock {
		return checkRealBaseline(a.stderr, o.baseline, o.baselineJSON, rep, rows)
	}
	return compareBaseline(o.baseline, o.baselineJSON, rep)
}

// printResult writes a result to stdout in format f: the JSON result, the CSV
// records of its section, or its tables fitted to the terminal.
func printResult(a *app, f report.Format, result any, section report.Section) error {
	switch f {
	case report.FormatJSON:
		return report.WriteJSON(a.stdout, result)
	case report.FormatCSV:
		return report.WriteCSV(a.stdout, section.Records)
	}
	return report.RenderWidth(a.stdout, f, a.width, section.Tables()...)
}

// progress returns a progress callback that redraws one line on stderr when it
// is a terminal, and nil otherwise.
func progress(a *app, what string) func(done, total int) {
	if !a.stderrTTY {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(a.stderr, "\r%s: %d/%d runs", what, done, total)
		if done == total {
			fmt.Fprint(a.stderr, "\r\033[K")
		}
	}
}
