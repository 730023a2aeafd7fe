package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/sources"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// The conform clauses the matrix reads, by the names conform gives them.
// A clause renamed there leaves its cell "not run" naming it, which the
// audit's tests catch.
const (
	clauseStaleVersion = "stale version"
	clauseNoVersion    = "no expected_version"
)

// raceModes returns the race's modes for the variant the target serves:
// none alone without a version check, else both policies under its guard.
func raceModes(v contract.Variant) []race.Mode {
	if v.Guard == contract.GuardNone {
		return []race.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}}
	}
	return []race.Mode{{Guard: v.Guard, Policy: sim.Reapply}, {Guard: v.Guard, Policy: sim.Refresh}}
}

// raceColumn is the matrix's column of a race mode.
func raceColumn(m race.Mode) string { return "race " + m.String() }

// modeOf is the race mode of a run, by its guard and policy.
func modeOf(guard, policy string) race.Mode {
	m := race.Mode{Guard: contract.Guard(guard), Policy: sim.Policy(policy)}
	if m.Guard == contract.GuardNone {
		m.Policy = sim.Reapply
	}
	return m
}

// raceSetup is the race's configuration: the budget's, of modes.
func (a *auditRun) raceSetup(modes []race.Mode) (experiment.Configured, error) {
	return configure(a, race.Experiment, a.cfg.Budget.Race, withModes(modes...), raceParallel)
}

// withModes is the race's change to modes.
func withModes(modes ...race.Mode) raceChange {
	return raceChange{Given: []string{"modes"}, Set: func(c *race.Config) { c.Modes = modes }}
}

// raceParallel sets the race's runs at once.
func raceParallel(c *race.Config, n int) { c.Parallel = n }

// raceStep is the race's part, with the checks of its history.
func (a *auditRun) raceStep() step {
	return step{name: "race", run: a.race, skip: func(why string) { a.skipRace(raceModes(a.variant), why) }}
}

// skipRace records why the race under modes was not judged.
func (a *auditRun) skipRace(modes []race.Mode, why string) {
	a.notRun(raceColumn(modes[0]), why, results.AnomalyLostUpdate, results.AnomalyStaleWrite, results.AnomalyEmptyRead)
	for _, m := range modes {
		a.notRun(raceColumn(m), why, results.AnomalyServerErrors, results.AnomalyAppliedTwice, results.AnomalyStoreDestroyed)
	}
}

// race runs the race with its history recorded, then the checks of the
// history: the lost updates of the re-applying mode (or of no version
// check) are the server's, the refresh mode's the client's, and the
// stale overwrites check finds under re-applying are the server's.
func (a *auditRun) race(ctx context.Context) error {
	modes := raceModes(a.variant)
	for _, m := range modes {
		a.column(raceColumn(m))
	}
	x, err := a.raceSetup(modes)
	if err != nil {
		return err
	}
	p := results.AuditPart{Name: "race", Command: a.command("race", x.Flags(), "--replications", "0", "--history", raceHistory)}
	checkPart := results.AuditPart{Name: "check", Command: []string{"notesbench", "check", raceHistory}}
	server := modes[0]
	skip := func(why string) { a.skipRace(modes, why) }
	if why := a.require(race.Experiment); why != "" {
		p.NotRun, checkPart.NotRun = why, "no race ran"
		a.part(p, nil)
		a.part(checkPart, nil)
		skip("race not run: " + why)
		return nil
	}
	w := history.NewWriter(history.Header{Experiment: "race", Command: shell.Line(p.Command)})
	start := time.Now()
	out, runErr, err := a.runExperiment(ctx, x, sim.Runtime{History: w, StopAt: a.cfg.Budget.editsEnd(start)})
	p.Seconds = roundSeconds(time.Since(start))
	if err != nil {
		return err
	}
	if runErr != nil {
		p.Error, checkPart.NotRun = runErr.Error(), "the race ended in an error"
		a.part(p, nil)
		a.part(checkPart, nil)
		skip(endedIn("race", runErr))
		return nil
	}
	rows, runs, err := rowsAndRuns[race.Row, results.RaceRun](out)
	if err != nil {
		return err
	}
	if why := noRunSetUp(runs, func(r results.RaceRun) string { return r.SetupFailed }); why != "" {
		p.Error, checkPart.NotRun = why, "no race run was set up"
		a.ran(p, out)
		a.part(checkPart, nil)
		skip(endedIn("race", errors.New(why)))
		return nil
	}
	a.ran(p, out)
	for _, row := range rows {
		m := modeOf(row.Guard, row.Policy)
		col := raceColumn(m)
		errs := row.ErrorsClaude + row.ErrorsHuman
		a.add(results.AnomalyServerErrors, results.Counted(col, "calls ended in a server error", UnitCalls, errs, 0))
		a.add(results.AnomalyAppliedTwice, results.Counted(col, "lines the final text holds more than once", UnitLines, row.DuplicatesClaude+row.DuplicatesHuman, 0))
		a.add(results.AnomalyStoreDestroyed, destroyedCell(col, runs, func(r results.RaceRun) bool { return modeOf(r.Guard, r.Policy) == m },
			func(r results.RaceRun) string { return cmp.Or(r.SetupFailed, r.Unreadable) }))
		switch {
		case m == server:
			c := results.Counted(col, "acknowledged lines lost", UnitLines, row.Lost, row.Intended)
			if errs > 0 {
				// Few lines are there to lose when most writes were refused.
				c.Note = fmt.Sprintf("%d of the %d lines meant ended in a server error, never acknowledged", errs, row.Intended)
			}
			a.add(results.AnomalyLostUpdate, c)
		default:
			a.costs = append(a.costs, results.ClientCost{Mode: col, Policy: string(m.Policy),
				What: "acknowledged lines lost resending the old text with the fresh version", Count: row.Lost, Of: row.Intended})
		}
	}
	a.plots = append(a.plots, racePlot("race-lost", "Acknowledged lines lost per race run, re-applying after each conflict: the server's",
		modes[:1], runs))
	if len(modes) > 1 {
		// What the other policies lose is the client's doing: it comes
		// after the server's plots, titled as the client's.
		a.costPlots = append(a.costPlots, racePlot("race-client-cost", "Lines the client lost per race run resending its old text (refresh): the client's cost, not the server's",
			modes[1:], runs))
	}
	for _, r := range runs {
		if modeOf(r.Guard, r.Policy) == server && r.SetupFailed == "" {
			a.unfaulted[r.Seed] = r.Lost()
		}
	}

	// The checks of the history, a second opinion from the calls alone.
	start = time.Now()
	rep, err := a.keep(ctx, raceHistory, w, true)
	checkPart.Seconds = roundSeconds(time.Since(start))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		checkPart.Error = err.Error()
		a.part(checkPart, nil)
		a.add(results.AnomalyStaleWrite, results.NotRunCell(raceColumn(server), "", endedIn("check", err)))
		a.add(results.AnomalyEmptyRead, results.NotRunCell(raceColumn(server), "", endedIn("check", err)))
		return nil
	}
	checkPart.Result = results.NewCheckRecord(results.CheckConfig{Histories: []string{raceHistory}, TimeoutS: a.cfg.Budget.CheckTimeout.Seconds()}, rep, a.cfg.Version)
	tables := report.CheckTables(rep, "Checks of the race's history", false, "")
	if note := clientViolations(rep, server); note != "" && len(tables) > 0 {
		tables[0].Notes = append(tables[0].Notes, note)
	}
	a.part(checkPart, tables)
	a.timeline = rep.Visualization
	a.add(results.AnomalyStaleWrite, staleCell(rep, server))
	a.add(results.AnomalyEmptyRead, emptyReadsCell(rep, raceColumn(server)))

	// Each count above 0, shown by the operations of one run.
	inMode := func(m race.Mode) func(results.CheckRun) bool {
		return func(r results.CheckRun) bool { return modeOf(string(r.Variant.Guard), r.Policy) == m }
	}
	replay := func(r results.CheckRun) string {
		return a.replayOf(x, r.Seed, modeOf(string(r.Variant.Guard), r.Policy).String())
	}
	anyMode := func(results.CheckRun) bool { return true }
	a.prove(results.AnomalyLostUpdate, raceColumn(server), proofOf(rep, results.CheckLostUpdates, inMode(server), raceHistory, replay))
	a.prove(results.AnomalyStaleWrite, raceColumn(server), proofOf(rep, results.CheckStaleOverwrites, inMode(server), raceHistory, replay))
	a.prove(results.AnomalyStaleWrite, raceColumn(server), proofOf(rep, results.CheckLinearizability, inMode(server), raceHistory, replay))
	a.prove(results.AnomalyEmptyRead, raceColumn(server), proofOf(rep, results.CheckEmptyReads, anyMode, raceHistory, replay))
	for _, m := range modes {
		a.prove(results.AnomalyAppliedTwice, raceColumn(m), proofOf(rep, results.CheckDuplicates, inMode(m), raceHistory, replay))
		for _, r := range runs {
			if why := cmp.Or(r.SetupFailed, r.Unreadable); why != "" && modeOf(r.Guard, r.Policy) == m {
				a.prove(results.AnomalyStoreDestroyed, raceColumn(m), saidProof(why, r.Seed, a.replayOf(x, r.Seed, m.String())))
			}
		}
	}
	return nil
}

// staleCell is the stale overwrites check found in the runs of mode.
func staleCell(rep *results.CheckReport, mode race.Mode) results.AuditCell {
	col, source := raceColumn(mode), "stale overwrites (check)"
	i := slices.IndexFunc(rep.Checks, func(r results.CheckResult) bool { return r.Check == results.CheckStaleOverwrites })
	if i < 0 {
		return results.NotRunCell(col, source, "check has no "+results.CheckStaleOverwrites+" check")
	}
	n, judged, nonlinear := 0, 0, 0
	for _, r := range rep.Runs {
		if modeOf(string(r.Variant.Guard), r.Policy) == mode {
			n += r.StaleOverwrites
			judged++
			if r.Linearizable == results.CheckViolated {
				nonlinear++
			}
		}
	}
	if c := rep.Checks[i]; c.Verdict == results.CheckUnknown || c.Verdict == results.CheckNotApplicable {
		// Stale overwrites are judged on a linearization of the register's
		// writes; a register whose writes fit no order under compare-and-set
		// took a write with a stale version all the same.
		if nonlinear > 0 {
			return results.Counted(col, "runs whose writes fit no order of compare-and-set (check: linearizability)", UnitRuns, nonlinear, judged)
		}
		return results.NotRunCell(col, source, "check "+string(c.Verdict)+": "+c.Reason)
	}
	if judged == 0 {
		return results.NotRunCell(col, source, "the history holds no run of "+mode.String())
	}
	return results.Counted(col, source, UnitWrites, n, 0)
}

// emptyReadsCell is, in column col, the reads check found returning an
// empty document after lines were acknowledged, over every run of the
// history: whatever the client's policy, the document was the server's.
func emptyReadsCell(rep *results.CheckReport, col string) results.AuditCell {
	source := "reads that returned an empty document after lines were acknowledged (check: empty-reads)"
	i := slices.IndexFunc(rep.Checks, func(r results.CheckResult) bool { return r.Check == results.CheckEmptyReads })
	if i < 0 {
		return results.NotRunCell(col, source, "check has no "+results.CheckEmptyReads+" check")
	}
	c := rep.Checks[i]
	if c.Verdict == results.CheckUnknown || c.Verdict == results.CheckNotApplicable {
		return results.NotRunCell(col, source, "check "+string(c.Verdict)+": "+c.Reason)
	}
	cell := results.Counted(col, source, UnitReads, c.Violations, c.Judged)
	if len(c.First) > 0 {
		cell.Note = "the first: " + c.First[0]
	}
	return cell
}

// clientViolations says, of a race's checks, how much of what they found
// is in the runs of the client's policies beside the server's mode (refresh
// resending its old text loses lines by design), "" when nothing is: the
// checks judge every run, the matrix counts the server's mode alone.
func clientViolations(rep *results.CheckReport, server race.Mode) string {
	lost, stale, serverLost, serverStale := 0, 0, 0, 0
	for _, r := range rep.Runs {
		if modeOf(string(r.Variant.Guard), r.Policy) == server {
			serverLost, serverStale = serverLost+r.Lost, serverStale+r.StaleOverwrites
		} else {
			lost, stale = lost+r.Lost, stale+r.StaleOverwrites
		}
	}
	if lost == 0 && stale == 0 {
		return ""
	}
	return fmt.Sprintf("these checks judge every run: %d lost lines and %d stale overwrites are in the runs of the client's policies other than %s (the refresh policy resends its old text: the client's cost), which the matrix leaves out; the %s runs: %d lost, %d stale overwrites",
		lost, stale, server, server, serverLost, serverStale)
}

// racePlot is the lines each race run of modes lost, a series per mode, run
// by run.
func racePlot(name, title string, modes []race.Mode, runs []results.RaceRun) results.AuditPlot {
	p := results.AuditPlot{Name: name, Title: title, YLabel: "lines lost"}
	var seeds []uint64
	for _, r := range runs {
		if !slices.Contains(seeds, r.Seed) && slices.Contains(modes, modeOf(r.Guard, r.Policy)) {
			seeds = append(seeds, r.Seed)
		}
	}
	slices.Sort(seeds)
	for _, s := range seeds {
		p.Runs = append(p.Runs, "seed "+strconv.FormatUint(s, 10))
	}
	for _, m := range modes {
		series := results.PlotSeries{Label: m.String(), Values: make([]float64, len(seeds))}
		for _, r := range runs {
			if modeOf(r.Guard, r.Policy) == m {
				series.Values[slices.Index(seeds, r.Seed)] = float64(r.Lost())
			}
		}
		p.Series = append(p.Series, series)
	}
	return p
}

// runConform runs conform against target and returns its report and tables.
func runConform(ctx context.Context, target contract.Target, name string, fastTime time.Duration) (results.ConformReport, []report.Table, error) {
	rep, err := conform.Run(ctx, target, conform.Options{Name: name, FastTime: fastTime})
	if err != nil {
		return rep, nil, err
	}
	return rep, report.ConformTables(rep), nil
}

// clauseCell is the matrix's cell of conform's clause name: 1 when it
// failed, 0 when it passed (or reported what the contract leaves open),
// and not run when the target cannot be held to it.
func clauseCell(checks []results.ConformCheck, name, source string) results.AuditCell {
	i := slices.IndexFunc(checks, func(c results.ConformCheck) bool { return c.Name == name })
	if i < 0 {
		return results.NotRunCell(modeConform, source, "conform has no clause "+strconv.Quote(name))
	}
	switch c := checks[i]; c.Outcome {
	case results.ConformFail:
		return results.Counted(modeConform, source, UnitClauses, 1, 1)
	case results.ConformNotApplicable:
		return results.NotRunCell(modeConform, source, "n/a: "+c.Detail)
	}
	return results.Counted(modeConform, source, UnitClauses, 0, 1)
}

// createSetup is create's configuration: the budget's, of the target's
// order.
func (a *auditRun) createSetup() (experiment.Configured, error) {
	order := a.variant.Order
	return configure(a, create.Experiment, a.cfg.Budget.Create,
		createChange{Given: []string{"order"}, Set: func(c *create.Config) { c.Order = order }},
		func(c *create.Config, n int) { c.Parallel = n })
}

// createStep is create's part.
func (a *auditRun) createStep() step {
	return step{name: "create", run: a.create, skip: a.skipCreate}
}

// createTables are the create tables the target's order serves.
func (a *auditRun) createTables() []string {
	if a.variant.Order == contract.OrderVersionFirst {
		return []string{create.TableB} // table A is key-first
	}
	return []string{create.TableA, create.TableB}
}

// skipCreate records why create was not judged.
func (a *auditRun) skipCreate(why string) {
	for _, t := range a.createTables() {
		a.notRun("create "+t, why, results.AnomalyDuplicate, results.AnomalyServerErrors, results.AnomalyStoreDestroyed)
	}
}

// runPart runs x, the part d of the audit, recording its history into a
// writer it returns beside the part (its command, its time) and the run's
// findings. A part that could not run, or whose run ended in an error, is
// recorded here and skip told why; its findings are nil.
func (a *auditRun) runPart(ctx context.Context, d experiment.Descriptor, x experiment.Configured, file string, skip func(why string)) (results.AuditPart, *experiment.Findings, *history.Writer, error) {
	name := d.Info().Name
	p := results.AuditPart{Name: name, Command: a.command(name, x.Flags(), "--replications", "0", "--history", file)}
	if why := a.require(d); why != "" {
		p.NotRun = why
		a.part(p, nil)
		skip(name + " not run: " + why)
		return p, nil, nil, nil
	}
	start := time.Now()
	w := history.NewWriter(history.Header{Experiment: name, Command: shell.Line(p.Command)})
	out, runErr, err := a.runExperiment(ctx, x, sim.Runtime{History: w})
	p.Seconds = roundSeconds(time.Since(start))
	if err != nil {
		return p, nil, nil, err
	}
	if runErr != nil {
		p.Error = runErr.Error()
		a.part(p, nil)
		skip(endedIn(name, runErr))
		return p, nil, nil, nil
	}
	return p, out, w, nil
}

// create runs the create experiment where the target maps a create and a
// listing: duplicates of the rows that kept the key on every resend are
// the server's, those of a fresh key the client's.
func (a *auditRun) create(ctx context.Context) error {
	x, err := a.createSetup()
	if err != nil {
		return err
	}
	tables := a.createTables()
	skip := a.skipCreate
	p, out, w, err := a.runPart(ctx, create.Experiment, x, createHistory, skip)
	if out == nil || err != nil {
		return err
	}
	rows, runs, err := rowsAndRuns[create.Row, create.Run](out)
	if err != nil {
		return err
	}
	if why := noRunSetUp(runs, func(r create.Run) string { return r.SetupFailed }); why != "" {
		p.Error = why
		a.ran(p, out)
		skip(endedIn("create", errors.New(why)))
		return nil
	}
	a.ran(p, out)
	for _, t := range tables {
		col := "create " + t
		a.column(col)
		dups, created, errs := 0, 0, 0
		for _, row := range rows {
			if row.Table != t {
				continue
			}
			errs += sum(row.Errors)
			if row.KeyPolicy == create.KeyRetry {
				dups += sum(row.Duplicates)
				created += sum(row.TabsCreated)
				continue
			}
			a.costs = append(a.costs, results.ClientCost{Mode: col, Policy: row.KeyPolicy,
				What: createCost(row.KeyPolicy), Count: sum(row.Duplicates), Of: sum(row.TabsCreated)})
		}
		a.add(results.AnomalyDuplicate, results.Counted(col, "duplicate tabs, the key kept on every resend", UnitTabs, dups, created))
		a.add(results.AnomalyServerErrors, results.Counted(col, "calls ended in a server error", UnitCalls, errs, 0))
		a.add(results.AnomalyStoreDestroyed, destroyedCell(col, runs, func(r create.Run) bool { return r.Table == t },
			func(r create.Run) string { return r.SetupFailed }))
	}
	a.plots = append(a.plots, createPlot(runs))
	rep, err := a.keep(ctx, createHistory, w, false)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		a.warnings = append(a.warnings, "create: its history did not check, so its counts have no proof: "+err.Error())
		return nil
	}
	replay := func(r results.CheckRun) string { return a.replayOf(x, r.Seed, "") }
	for _, t := range tables {
		inTable := func(r results.CheckRun) bool {
			return strings.HasPrefix(r.Run, "create-"+t+"-") && r.Policy == create.KeyRetry
		}
		a.prove(results.AnomalyDuplicate, "create "+t, proofOf(rep, results.CheckDuplicates, inTable, createHistory, replay))
		for _, r := range runs {
			if r.SetupFailed != "" && r.Table == t {
				a.prove(results.AnomalyStoreDestroyed, "create "+t, saidProof(r.SetupFailed, r.Seed, a.replayOf(x, r.Seed, "")))
			}
		}
	}
	return nil
}

// createCost says what a create row's duplicates come from.
func createCost(policy string) string {
	switch policy {
	case create.KeyAfterConflict:
		return "duplicate tabs, a new key after a conflict"
	}
	return "duplicate tabs, a new key on every resend"
}

// createPlot is the duplicate tabs of each create run, by table and key
// policy, run by run.
func createPlot(runs []create.Run) results.AuditPlot {
	p := results.AuditPlot{Name: "create-duplicates", Title: "Duplicate tabs per create run", YLabel: "duplicate tabs"}
	return seriesBySeed(p, runs, func(r create.Run) (string, uint64, int) {
		return r.Table + " " + r.Order + " " + r.KeyPolicy, r.Seed, r.Duplicates
	})
}

// sourcesSetup is sources' configuration: the budget's.
func (a *auditRun) sourcesSetup() (experiment.Configured, error) {
	return configure(a, sources.Experiment, a.cfg.Budget.Sources, sourcesChange{}, func(c *sources.Config, n int) { c.Parallel = n })
}

// sourcesStep is sources' part.
func (a *auditRun) sourcesStep() step {
	return step{name: "sources", run: a.sources, skip: a.skipSources}
}

// skipSources records why sources was not judged.
func (a *auditRun) skipSources(why string) {
	a.notRun(modeSources, why, results.AnomalyDuplicate, results.AnomalyServerErrors, results.AnomalyStoreDestroyed)
}

// sources runs the sources experiment where the target maps a source and
// its listing: a duplicate under the normalized key, one key per page on
// every call and resend, is the server's; what a key from the URL's
// spelling adds beyond it is the key policy's, the client's.
func (a *auditRun) sources(ctx context.Context) error {
	x, err := a.sourcesSetup()
	if err != nil {
		return err
	}
	p, out, w, err := a.runPart(ctx, sources.Experiment, x, sourcesHistory, a.skipSources)
	if out == nil || err != nil {
		return err
	}
	runs, ok := out.Report.Runs.([]sources.Run)
	if !ok {
		return errNoRows
	}
	if why := noRunSetUp(runs, func(r sources.Run) string { return r.SetupFailed }); why != "" {
		p.Error = why
		a.ran(p, out)
		a.skipSources(endedIn("sources", errors.New(why)))
		return nil
	}
	a.ran(p, out)
	a.column(modeSources)
	// Counted in the final state, by key policy: under the normalized key
	// every spelling of a page and every resend of it carries one key, so
	// a duplicate there is one the server made although the client kept
	// its key; what another policy adds beyond it is the policy's.
	errs := 0
	byPolicy := map[string][2]int{} // duplicates, saved
	var policies []string
	for _, r := range runs {
		errs += r.Errors
		if !slices.Contains(policies, r.KeyPolicy) {
			policies = append(policies, r.KeyPolicy)
		}
		c := byPolicy[r.KeyPolicy]
		byPolicy[r.KeyPolicy] = [2]int{c[0] + r.Duplicates, c[1] + r.Saved}
	}
	server, ok := byPolicy[sources.KeyNormalized]
	if ok {
		a.add(results.AnomalyDuplicate, results.Counted(modeSources, "duplicate sources saved under one key per page (key normalized)", UnitSources, server[0], server[1]))
	} else {
		a.add(results.AnomalyDuplicate, results.NotRunCell(modeSources, "", "sources ran no normalized key, the one key per page"))
	}
	a.add(results.AnomalyServerErrors, results.Counted(modeSources, "calls ended in a server error", UnitCalls, errs, 0))
	a.add(results.AnomalyStoreDestroyed, destroyedCell(modeSources, runs, func(sources.Run) bool { return true },
		func(r sources.Run) string { return cmp.Or(r.SetupFailed, r.UnreadableFinal) }))
	for _, pol := range policies {
		if pol == sources.KeyNormalized {
			continue
		}
		c := byPolicy[pol]
		a.costs = append(a.costs, results.ClientCost{Mode: modeSources, Policy: pol,
			What: "duplicate sources a key from the URL's spelling adds, beyond the normalized key's", Count: max(0, c[0]-server[0]), Of: c[1]})
	}
	a.plots = append(a.plots, seriesBySeed(
		results.AuditPlot{Name: "sources-duplicates", Title: "Duplicate sources per sources run", YLabel: "duplicate sources"},
		runs, func(r sources.Run) (string, uint64, int) { return r.KeyPolicy, r.Seed, r.Duplicates }))
	rep, err := a.keep(ctx, sourcesHistory, w, false)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		a.warnings = append(a.warnings, "sources: its history did not check, so its counts have no proof: "+err.Error())
		return nil
	}
	replay := func(r results.CheckRun) string { return a.replayOf(x, r.Seed, "") }
	normalized := func(r results.CheckRun) bool { return r.Policy == sources.KeyNormalized }
	a.prove(results.AnomalyDuplicate, modeSources, proofOf(rep, results.CheckDuplicates, normalized, sourcesHistory, replay))
	for _, r := range runs {
		if why := cmp.Or(r.SetupFailed, r.UnreadableFinal); why != "" {
			a.prove(results.AnomalyStoreDestroyed, modeSources, saidProof(why, r.Seed, a.replayOf(x, r.Seed, "")))
		}
	}
	return nil
}

// faultRows are the rows a fault mode counts in.
var faultRows = []string{results.AnomalyLostAcknowledged, results.AnomalyUnreadable}

// faultStep is the part of fault mode f.
func (a *auditRun) faultStep(f FaultMode) step {
	return step{name: f.Mode, run: func(ctx context.Context) error { return a.fault(ctx, f) },
		skip: func(why string) { a.notRun(f.Mode, why, faultRows...) }}
}

// fault runs one fault mode, or records why it did not run.
func (a *auditRun) fault(ctx context.Context, f FaultMode) error {
	rows := faultRows
	if c, ok := a.target.(contract.Capable); ok && f.NotRun == "" && len(f.Needs) > 0 {
		if err := c.Require(f.Mode, f.Needs...); err != nil {
			f.NotRun = err.Error()
		}
	}
	if f.NotRun != "" || f.Run == nil {
		why := cmp.Or(f.NotRun, "nothing runs it")
		a.part(results.AuditPart{Name: f.Mode, NotRun: why}, nil)
		a.notRun(f.Mode, why, rows...)
		return nil
	}
	a.column(f.Mode)
	start := time.Now()
	fo, err := f.Run(ctx, a.cfg.Budget)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fo.Part.Name, fo.Part.Error = f.Mode, err.Error()
		a.part(fo.Part, nil)
		a.notRun(f.Mode, endedIn(f.Mode, err), rows...)
		return nil
	}
	if fo.Part.Name == "" {
		fo.Part.Name = f.Mode
	}
	fo.Part.Seconds = roundSeconds(time.Since(start))
	a.part(fo.Part, fo.Tables)
	a.warnings = append(a.warnings, prefixed(f.Mode+": ", fo.Warnings)...)
	if fo.LostAcknowledged == nil {
		a.add(results.AnomalyLostAcknowledged, results.NotRunCell(f.Mode, "acknowledged writes lost", "not judged: the lost-updates check could not judge everything"))
	} else {
		a.add(results.AnomalyLostAcknowledged, results.Counted(f.Mode, "acknowledged writes lost", UnitWrites, *fo.LostAcknowledged, 0))
	}
	a.add(results.AnomalyUnreadable, results.Counted(f.Mode, "runs whose final state did not read back whole", UnitRuns, fo.Unreadable, fo.Runs))
	if fo.EmptyReads != nil {
		a.add(results.AnomalyEmptyRead, results.Counted(f.Mode, "reads that found the document emptied", UnitReads, *fo.EmptyReads, 0))
	}
	if fo.AppliedTwice != nil {
		a.add(results.AnomalyAppliedTwice, results.Counted(f.Mode, "lines or sources the final state holds twice", UnitLines, *fo.AppliedTwice, 0))
	}
	if fo.Errors != nil {
		a.add(results.AnomalyServerErrors, results.Counted(f.Mode, "calls ended in a server error", UnitCalls, *fo.Errors, 0))
	}
	if fo.History != nil && fo.Checks != nil {
		file := "histories/" + f.Mode + ".jsonl"
		a.histories[file] = fo.History
		replay := func(results.CheckRun) string { return shell.Line(fo.Part.Command) }
		all := func(results.CheckRun) bool { return true }
		a.prove(results.AnomalyLostAcknowledged, f.Mode, proofOf(fo.Checks, results.CheckLostUpdates, all, file, replay))
		a.prove(results.AnomalyAppliedTwice, f.Mode, proofOf(fo.Checks, results.CheckDuplicates, all, file, replay))
		a.prove(results.AnomalyEmptyRead, f.Mode, proofOf(fo.Checks, results.CheckEmptyReads, all, file, replay))
	}
	return nil
}

// seriesBySeed is p with a bar per run of runs, a series per label, the
// runs in seed order.
func seriesBySeed[Run any](p results.AuditPlot, runs []Run, of func(Run) (label string, seed uint64, value int)) results.AuditPlot {
	var seeds []uint64
	var labels []string
	for _, r := range runs {
		label, seed, _ := of(r)
		if !slices.Contains(seeds, seed) {
			seeds = append(seeds, seed)
		}
		if !slices.Contains(labels, label) {
			labels = append(labels, label)
		}
	}
	slices.Sort(seeds)
	for _, s := range seeds {
		p.Runs = append(p.Runs, "seed "+strconv.FormatUint(s, 10))
	}
	for _, l := range labels {
		series := results.PlotSeries{Label: l, Values: make([]float64, len(seeds))}
		for _, r := range runs {
			if label, seed, v := of(r); label == l {
				series.Values[slices.Index(seeds, seed)] = float64(v)
			}
		}
		p.Series = append(p.Series, series)
	}
	return p
}

// destroyedCell counts, in column col, the runs of runs that of keeps
// whose document the server could not set up or read back at the end
// (why says why, "" when it could), with the first one's words as the
// cell's note.
func destroyedCell[Run any](col string, runs []Run, of func(Run) bool, why func(Run) string) results.AuditCell {
	n, total, first := 0, 0, ""
	for _, r := range runs {
		if !of(r) {
			continue
		}
		total++
		if w := why(r); w != "" {
			n++
			first = cmp.Or(first, w)
		}
	}
	c := results.Counted(col, "runs whose document could not be set up or read back", UnitRuns, n, total)
	if first != "" {
		c.Note = "the first: " + first
	}
	return c
}

// noRunSetUp says why no run of runs was set up, "" when one was: its
// counts would be counts of nothing.
func noRunSetUp[Run any](runs []Run, failed func(Run) string) string {
	if len(runs) == 0 || slices.ContainsFunc(runs, func(r Run) bool { return failed(r) == "" }) {
		return ""
	}
	return fmt.Sprintf("the set-up of every run failed (%d), the first: %s", len(runs), failed(runs[0]))
}

// prefixed returns each of lines with prefix before it.
func prefixed(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}

// sum adds up xs.
func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// rowsAndRuns returns the rows and runs of an experiment's outcome, as their
// own types; errNoRows when they are not those.
func rowsAndRuns[Row, Run any](out *experiment.Findings) ([]Row, []Run, error) {
	rows, ok1 := out.Report.Rows.([]Row)
	runs, ok2 := out.Report.Runs.([]Run)
	if !ok1 || !ok2 {
		return nil, nil, errNoRows
	}
	return rows, runs, nil
}
