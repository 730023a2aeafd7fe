package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// minReplications is the number of replications from which the 0.5 % and
// 99.5 % quantiles of ours rest on more than the extremes.
const minReplications = 100

// comparison is what an experiment command knows about the published setup:
// the published experiment, and how our parameters differ from it.
type comparison struct {
	exp   *results.Experiment
	diffs []string
	// ratioOnly marks figures judged only as a ratio (nil: timings).
	ratioOnly func(figure string) bool
}

// compareWith returns the published experiment called name and the differences
// of our parameters, each "edits 50 (published 100)".
func compareWith(name string, diffs ...string) comparison {
	return compareList(name, diffs)
}

// compareList is compareWith for a list of differences.
func compareList(name string, diffs []string) comparison {
	exp, ok := results.Lookup(name)
	if !ok {
		panic("no published experiment " + name) // the embedded file is tested
	}
	var d []string
	for _, s := range diffs {
		if s != "" {
			d = append(d, s)
		}
	}
	return comparison{exp: exp, diffs: d}
}

// differ returns "name ours (published theirs)" when ours differs, else "".
func differ(name string, ours, theirs any) string {
	o, t := fmt.Sprint(ours), fmt.Sprint(theirs)
	if o == t {
		return ""
	}
	return fmt.Sprintf("%s %s (published %s)", name, o, t)
}

// published reports whether our parameters equal the published ones, so that the
// published figures may stand beside ours.
func (c comparison) published() bool { return len(c.diffs) == 0 }

// shown returns the experiment to show beside ours, or nil.
func (c comparison) shown() *results.Experiment {
	if c.published() {
		return c.exp
	}
	return nil
}

// finish fills the report's published tables, verdicts and notes, and returns
// the tables to print: the experiment's own, then the verdicts.
//
// reps holds the rows of each replication; runs, when set, the rows of each
// single run, against which published ranges over runs are judged.
func (c comparison) finish(rep *results.Report, main report.Table, reps, runs [][]map[string]any, ourSetup string) []report.Table {
	return c.finishWith(rep, main, ourSetup, func() []results.Verdict {
		if len(reps) == 0 {
			return nil
		}
		rep.Replications = len(reps)
		return results.CompareReplications(c.exp, reps, runs, results.DefaultMass, c.ratioOnly)
	})
}

// finishWith is finish with the verdicts made by judge (nil: none).
func (c comparison) finishWith(rep *results.Report, main report.Table, ourSetup string, judge func() []results.Verdict) []report.Table {
	rep.Published = []results.PubTable{}
	main.Notes = append(main.Notes, "ours: "+ourSetup)
	if !c.published() {
		main.Notes = append(main.Notes, "published figures not shown: parameters differ from the published setup: "+strings.Join(c.diffs, ", "))
		return []report.Table{main}
	}
	rep.Published = results.PublishedTables(c.exp)
	for i := range c.exp.Tables {
		main.Notes = append(main.Notes, report.SourceNotes(&c.exp.Tables[i])...)
	}
	rep.Verdicts = judge()
	if len(rep.Verdicts) == 0 {
		return []report.Table{main}
	}
	if n := rep.Replications; n > 0 && n < minReplications {
		w := fmt.Sprintf("verdicts rest on %d replications: below %d the central 99 %% range is little more than the minimum and maximum of ours, so more figures read as differing", n, minReplications)
		rep.Warnings = append(rep.Warnings, w)
		main.Notes = append(main.Notes, "warning: "+w)
	}
	title := "Verdicts: published figures against ours"
	if rep.Replications > 0 {
		title = fmt.Sprintf("Verdicts: published figures against %d replications of the published setup", rep.Replications)
	}
	return []report.Table{main, report.VerdictTable(title, results.DefaultMass, rep.Verdicts)}
}

// replicationEnv is the environment of verdict replications: the virtual clock,
// in memory, n replications of perRep seeds each, seeds 1 to n·perRep.
func replicationEnv(base sim.Env, n, perRep int) sim.Env {
	return sim.Env{Clock: sim.ClockVirtual, ServiceTime: base.ServiceTime, Seeds: seedsUpTo(n * perRep), InMemory: true,
		Synchronous: base.Synchronous, Progress: base.Progress, Target: backend.Memory()}
}

// groupReplications splits runs ordered mode-major (as sim returns them) into
// replications of perRep seeds, folds each mode's runs into a row, and returns
// each replication's rows as field maps.
func groupReplications[R, Row any](runs []R, modes, n, perRep int, fold func([]R) Row) ([][]map[string]any, error) {
	reps := make([][]map[string]any, n)
	for r := 0; r < n; r++ {
		rows := make([]Row, modes)
		for m := 0; m < modes; m++ {
			start := m*n*perRep + r*perRep
			rows[m] = fold(runs[start : start+perRep])
		}
		fields, err := results.RowFields(rows)
		if err != nil {
			return nil, err
		}
		reps[r] = fields
	}
	return reps, nil
}

// foldModes folds runs ordered mode-major into one row per mode.
func foldModes[R, Row any](runs []R, modes int, fold func([]R) Row) []Row {
	per := len(runs) / modes
	rows := make([]Row, modes)
	for m := range rows {
		rows[m] = fold(runs[m*per : (m+1)*per])
	}
	return rows
}

// engineSpec describes an experiment of the race engine (race, tabs, fast) to
// engineReport.
type engineSpec[C, Row any] struct {
	name  string
	cfg   C
	env   sim.Env // the Env cfg embeds
	cmp   comparison
	setup string
	// modes is the number of modes (rows) cfg runs; run returns their runs
	// mode-major, and fold folds one mode's runs into its row.
	modes int
	run   func(context.Context, C) ([]results.RaceRun, error)
	fold  func([]results.RaceRun) Row
	table func([]Row, *results.Experiment) report.Table
	// replicate returns the configuration of the verdict replications on env,
	// and how many modes it runs (0: none to replicate).
	replicate func(env sim.Env) (C, int)
}

// engineReport runs an experiment of the race engine, folds its runs into rows
// and, when the parameters are the published ones, runs the virtual-clock
// replications behind the verdicts; it returns the report and its tables.
func engineReport[C, Row any](ctx context.Context, a *app, s engineSpec[C, Row], replications int) (results.Report, []report.Table, error) {
	runs, err := s.run(ctx, s.cfg)
	if err != nil {
		return results.Report{}, nil, err
	}
	rows := foldModes(runs, s.modes, s.fold)
	var reps, single [][]map[string]any
	if s.cmp.published() && replications > 0 {
		perRep := len(s.env.Seeds)
		env := replicationEnv(s.env, replications, perRep)
		env.Progress = progress(a, s.name+" replications")
		rcfg, modes := s.replicate(env)
		if modes > 0 {
			rruns, err := s.run(ctx, rcfg)
			if err != nil {
				return results.Report{}, nil, err
			}
			if reps, err = groupReplications(rruns, modes, replications, perRep, s.fold); err != nil {
				return results.Report{}, nil, err
			}
			if single, err = groupReplications(rruns, modes, replications*perRep, 1, s.fold); err != nil {
				return results.Report{}, nil, err
			}
		}
	}
	rep := results.Report{Experiment: s.name, Config: s.cfg, Rows: rows, Runs: runs}
	return rep, s.cmp.finish(&rep, s.table(rows, s.cmp.shown()), reps, single, s.setup), nil
}
