package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// outcome is one experiment run through: the report (the JSON form), our rows
// typed, and the section that prints them.
type outcome[Row results.Row] struct {
	report  results.Report
	rows    []Row
	section report.Section
}

// runExperiment is the shape of every experiment command: check the output
// flags and build the experiment (both before anything runs, so that bad input
// costs nothing), run it with its verdicts, and print.
func runExperiment[Row results.Row, Run any](ctx context.Context, a *app, out *outFlags, name string, build func() (sim.Experiment[Row, Run], error)) error {
	format, err := out.check(a, name)
	if err != nil {
		return err
	}
	exp, err := build()
	if err != nil {
		return err
	}
	if err := exp.Validate(); err != nil {
		return flagError(out.flags, err)
	}
	out.realClock = onRealClock(exp)
	if err := out.checkParameters(exp); err != nil {
		return err
	}
	o, err := runOutcome(ctx, a, exp, out.replications, "")
	if err != nil {
		return err
	}
	if out.history != nil {
		if err := out.history.finish(); err != nil {
			return err
		}
	}
	return emit(a, out, format, o.report, o.rows, o.section)
}

// runOutcome runs exp and, when its parameters are the published ones and
// replications > 0, the virtual-clock replications behind its verdicts, and
// returns the outcome. titleSuffix is added to the titles of its main tables.
func runOutcome[Row results.Row, Run any](ctx context.Context, a *app, exp sim.Experiment[Row, Run], replications int, titleSuffix string) (outcome[Row], error) {
	var o outcome[Row]
	res, err := exp.Run(ctx, exp.SeedList())
	if err != nil {
		return o, err
	}
	cmp := results.Compare(exp.Name(), exp.Differences(), res.Rows, nil)
	if cmp.Shown() && replications > 0 {
		if replica, ok := exp.Replica(backend.Memory()); ok {
			perRep := max(1, len(exp.SeedList()))
			reps, err := sim.Replicate(ctx, replica, replications, perRep, progress(a, exp.Name()+" replications"))
			if err != nil {
				return o, err
			}
			cmp = results.Compare(exp.Name(), exp.Differences(), res.Rows, &reps)
		}
	}
	o.rows = res.Rows
	o.report = results.Report{
		Experiment:   exp.Name(),
		Config:       exp,
		Rows:         nonNilRows(res.Rows),
		Runs:         nonNilRows(res.Runs),
		Published:    cmp.Published,
		Replications: cmp.Replications,
		Verdicts:     cmp.Verdicts,
		Warnings:     cmp.Warnings,
		Version:      notesbenchVersion(),
	}.Complete()
	o.section = report.Build(report.Outcome{Experiment: exp.Name(), Rows: res.Rows, Setup: exp.Describe(),
		Facts: res.Facts, Comparison: cmp, TitleSuffix: titleSuffix})
	return o, nil
}

// nonNilRows makes a nil slice empty, so that JSON shows [] not null.
func nonNilRows[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// onRealClock reports whether exp runs on the real clock.
func onRealClock(exp any) bool {
	e, ok := exp.(interface{ ClockKind() sim.ClockKind })
	return ok && e.ClockKind() == sim.ClockReal
}

// fieldFlags maps the config fields whose flag is not the field's name with
// dashes for underscores.
var fieldFlags = map[string]string{
	"window_s":        "window",
	"seed":            "seeds",
	"service_time_ns": "service-time",
}

// flagError turns a configuration's field error into a usage error naming the
// flag that set the field; a field no flag of the command sets is named as it
// is, never as a flag that does not exist. Other errors pass unchanged.
func flagError(fs *pflag.FlagSet, err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err
	}
	name, ok := fieldFlags[fe.Field]
	if !ok {
		name = strings.ReplaceAll(fe.Field, "_", "-")
	}
	if fs != nil && fs.Lookup(name) != nil {
		return usageErr("--"+name, fe.Err)
	}
	return usageError{fmt.Errorf("%s: %w", strings.ReplaceAll(fe.Field, "_", " "), fe.Err)}
}
