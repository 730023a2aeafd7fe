package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// A NemesisMode is a fault the race runs under, a column of the matrix
// ("nemesis lose-replies"): notesbench makes it between itself and the
// server, on what it owns (the processes it started, their pipes, its
// loopback proxy). The caller, which knows how to open a target, hands it
// to Run: Open opens the audit's target with the fault made on it, every
// the mean time between two faults; a fault that cannot be made on this
// target says why in NotRun. Flags are the command-line flags that make it,
// for the commands the audit lists.
type NemesisMode struct {
	Kind   string
	NotRun string
	Flags  []string
	Open   func(ctx context.Context, every time.Duration) (contract.Target, error)
	// Reissue says the clients re-issue a write whose reply was lost as a
	// new request with the same idempotency key, as MCP 2026-07-28 asks
	// of a client whose response stream broke: the race's reissue
	// parameter, where the race has it.
	Reissue bool
}

// killsLast returns ms in their order, the kill nemesis moved last.
func killsLast(ms []NemesisMode) []NemesisMode {
	isKill := func(m NemesisMode) bool { return m.Kind == history.FaultKill }
	others := slices.DeleteFunc(slices.Clone(ms), isKill)
	return append(others, slices.DeleteFunc(slices.Clone(ms), func(m NemesisMode) bool { return !isKill(m) })...)
}

// nemesisColumn is the matrix's column of a nemesis.
func nemesisColumn(kind string) string { return "nemesis " + kind }

// nemesisRows are the rows a nemesis's column counts in.
var nemesisRows = []string{results.AnomalyLostUpdate, results.AnomalyStaleWrite, results.AnomalyAppliedTwice, results.AnomalyEmptyRead, results.AnomalyServerErrors}

// nemesisStep is the part of the race under nemesis m.
func (a *auditRun) nemesisStep(m NemesisMode) step {
	col := nemesisColumn(m.Kind)
	return step{name: col, run: func(ctx context.Context) error { return a.underNemesis(ctx, m) },
		skip: func(why string) { a.notRun(col, why, nemesisRows...) }}
}

// underNemesis runs the race under the re-applying policy (the mode whose
// losses are the server's) on the budget's nemesis seeds against the
// target with m's fault, checks its history, and counts what the fault
// cost beside what the same seeds lost without it.
func (a *auditRun) underNemesis(ctx context.Context, m NemesisMode) error {
	col := nemesisColumn(m.Kind)
	a.column(col)
	mode := raceModes(a.variant)[0]
	// The re-applying mode alone, whatever the server serves: its losses
	// are the server's.
	x, err := a.nemesisSetup(mode, m.Reissue)
	if err != nil {
		return err
	}
	file := "histories/" + m.Kind + ".jsonl"
	flags := append(slices.Clone(m.Flags), "--nemesis-every", a.cfg.Budget.NemesisEvery.String())
	p := results.AuditPart{Name: col, Command: append(a.command("race", x.Flags(), "--replications", "0", "--history", file), flags...)}
	skip := func(why string) { a.notRun(col, why, nemesisRows...) }
	switch {
	case m.NotRun != "" || m.Open == nil:
		p.NotRun = cmp.Or(m.NotRun, "nothing makes it here")
		a.part(p, nil)
		skip(p.NotRun)
		return nil
	case a.require(race.Experiment) != "":
		p.NotRun = "no race runs here: " + a.require(race.Experiment)
		a.part(p, nil)
		skip(p.NotRun)
		return nil
	}
	start := time.Now()
	target, err := m.Open(ctx, a.cfg.Budget.NemesisEvery)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p.Error = "opening the target with the fault: " + err.Error()
		a.part(p, nil)
		skip(endedIn(col, err))
		return nil
	}
	defer target.Close()
	w := history.NewWriter(history.Header{Experiment: "race", Command: shell.Line(p.Command)})
	out, runErr, err := a.runExperiment(ctx, x, sim.Runtime{Target: target, History: w, StopAt: a.cfg.Budget.editsEnd(start)})
	p.Seconds = roundSeconds(time.Since(start))
	if err != nil {
		return err
	}
	if runErr == nil {
		runErr = noRunSetUpErr(out)
	}
	if runErr != nil {
		p.Error = runErr.Error()
		a.part(p, nil)
		skip(endedIn(col, runErr))
		return nil
	}
	rows, runs, err := rowsAndRuns[race.Row, results.RaceRun](out)
	if err != nil {
		return err
	}
	a.ran(p, out)
	lost, dups, refused, unknown, intended, faults, without := 0, 0, 0, 0, 0, 0, 0
	for _, row := range rows {
		lost, dups, intended = lost+row.Lost, dups+row.DuplicatesClaude+row.DuplicatesHuman, intended+row.Intended
		// A call whose outcome nobody knows (a reply lost, a timeout, a
		// server killed) is the fault's doing; a refusal is the server's.
		info := row.InfoClaude + row.InfoHuman
		refused, unknown = refused+row.ErrorsClaude+row.ErrorsHuman-info, unknown+info
	}
	known := true
	var ended []string
	for _, r := range runs {
		faults += r.Faults
		n, ok := a.unfaulted[r.Seed]
		known = known && ok
		without += n
		if r.Stopped != "" {
			ended = append(ended, r.Stopped)
		}
	}
	c := results.Counted(col, "acknowledged lines lost with the fault", UnitLines, lost, intended)
	c.Note = fmt.Sprintf("%d faults made", faults)
	if known {
		c.Note += fmt.Sprintf("; the same seeds without the fault lost %d", without)
	}
	if len(ended) > 0 {
		// A run stopped early counts what it made; beside the seeds' full
		// runs without the fault, its losses are a floor.
		c.Note += "; " + strings.Join(ended, "; ")
	}
	a.add(results.AnomalyLostUpdate, c)
	a.add(results.AnomalyAppliedTwice, results.Counted(col, "lines the final text holds more than once", UnitLines, dups, 0))
	e := results.Counted(col, "calls the server refused (besides a version conflict)", UnitCalls, refused, 0)
	if unknown > 0 {
		e.Note = fmt.Sprintf("%d calls whose outcome the fault made unknown are not counted: they are the fault's", unknown)
	}
	a.add(results.AnomalyServerErrors, e)

	rep, err := a.keep(ctx, file, w, false)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		a.add(results.AnomalyStaleWrite, results.NotRunCell(col, "", endedIn("check", err)))
		a.add(results.AnomalyEmptyRead, results.NotRunCell(col, "", endedIn("check", err)))
		return nil
	}
	stale := staleCell(rep, mode)
	stale.Mode = col
	a.add(results.AnomalyStaleWrite, stale)
	a.add(results.AnomalyEmptyRead, emptyReadsCell(rep, col))
	replay := func(r results.CheckRun) string {
		return a.replayOf(x, r.Seed, mode.String()) + " " + shell.Line(flags)
	}
	all := func(results.CheckRun) bool { return true }
	a.prove(results.AnomalyLostUpdate, col, proofOf(rep, results.CheckLostUpdates, all, file, replay))
	a.prove(results.AnomalyStaleWrite, col, proofOf(rep, results.CheckStaleOverwrites, all, file, replay))
	a.prove(results.AnomalyStaleWrite, col, proofOf(rep, results.CheckLinearizability, all, file, replay))
	a.prove(results.AnomalyAppliedTwice, col, proofOf(rep, results.CheckDuplicates, all, file, replay))
	a.prove(results.AnomalyEmptyRead, col, proofOf(rep, results.CheckEmptyReads, all, file, replay))
	return nil
}

// nemesisSetup is the race's configuration under a nemesis: the budget's,
// of mode alone, its clients re-issuing a write whose reply was lost when
// reissue says so.
func (a *auditRun) nemesisSetup(mode race.Mode, reissue bool) (experiment.Configured, error) {
	more := []raceChange{withModes(mode)}
	if reissue {
		more = append(more, raceChange{Given: []string{"reissue"}, Set: func(c *race.Config) { c.Reissue = true }})
	}
	return configure(a, race.Experiment, a.cfg.Budget.Nemesis, raceChange{}, raceParallel, more...)
}

// noRunSetUpErr is the error of a race whose every run's set-up failed.
func noRunSetUpErr(out *experiment.Findings) error {
	runs, ok := out.Report.Runs.([]results.RaceRun)
	if !ok {
		return nil
	}
	if why := noRunSetUp(runs, func(r results.RaceRun) string { return r.SetupFailed }); why != "" {
		return errors.New(why)
	}
	return nil
}
