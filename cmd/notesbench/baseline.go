package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// compareBaseline compares the deterministic part of a result with a stored
// baseline recorded with the same parameters.
func compareBaseline(path string, baseline []byte, rep results.Report) error {
	diffs, err := results.CompareBaseline(baseline, rep)
	if err != nil {
		return cli.Usagef("--baseline", "%s: %v", path, err)
	}
	if len(diffs) > 0 {
		return &results.Regression{Path: path, Diffs: diffs}
	}
	return nil
}

// checkParameters returns a usage error when the baseline, if any, was
// recorded with other parameters than config: its figures cannot be
// compared. It runs before the experiment, so a mismatch costs nothing.
func (o *outFlags) checkParameters(config any) error {
	if o.baselineJSON == nil {
		return nil
	}
	diffs, err := results.ParameterDiffs(o.baselineJSON, config, o.realClock, sim.FormatSeeds)
	if err != nil {
		return cli.Usagef("--baseline", "%s: %v", o.baseline, err)
	}
	if len(diffs) > 0 {
		return cli.Usagef("--baseline", "%s was recorded with other parameters: %s", o.baseline, strings.Join(diffs, "; "))
	}
	return nil
}

// checkRealBaseline checks a real-clock run against a baseline (see
// results.CheckReal) and says on stderr what it checked.
func checkRealBaseline(stderr io.Writer, path string, baseline []byte, out *experiment.Findings) error {
	exp, _ := results.Lookup(out.Report.Experiment)
	diffs, note, err := results.CheckReal(baseline, exp, out.Invariants, out.Rows)
	if err != nil {
		return cli.Usagef("--baseline", "%s: %v", path, err)
	}
	if note != "" {
		note = "real clock against " + path + ": " + note
	}
	if len(diffs) > 0 {
		return &results.Regression{Path: path, Diffs: diffs, Note: note}
	}
	if note != "" {
		fmt.Fprintln(stderr, "notesbench: baseline: "+note)
	}
	return nil
}
