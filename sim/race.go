package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/results"
)

// noteID is the Note every race runs on.
const noteID = "note-1"

// Editing is the editing loop's parameters, shared by race and tabs.
//
// Pause is the pause rule: PauseThink (each editor draws from its own think
// distribution), PauseUniform0 (U(0, its think maximum)) or a distribution as
// ParseDist reads it. Oversleep lengthens every pause and think. Timing names
// the profile the two rules come from; the zero Timing is the default, and
// under any other profile the rules must be the profile's (WithTiming sets
// them). Every field is in the JSON, the default model's too.
type Editing struct {
	Edits       int         `json:"edits"`
	ClaudeThink Dist        `json:"claude_think"`
	HumanThink  Dist        `json:"human_think"`
	Pause       string      `json:"pause"`
	Oversleep   Oversleep   `json:"oversleep"`
	Timing      TimingModel `json:"timing"`
}

// PublishedEditing is the editing loop of the published setup, under the
// default timing.
func PublishedEditing() Editing {
	return Editing{Edits: 100, ClaudeThink: Dist{Min: 20e6, Max: 80e6}, HumanThink: Dist{Min: 5e6, Max: 40e6}, Pause: PauseThink}
}

// Check checks the editing parameters; its errors are *field.Error.
func (e Editing) Check() error {
	if err := ValidateEdits(e.Edits); err != nil {
		return err
	}
	if err := e.checkTiming(); err != nil {
		return err
	}
	_, _, err := e.Timings()
	return err
}

// Timings returns each editor's pause and think distributions and the
// oversleep of its sleeps.
func (e Editing) Timings() (claude, human Timing, err error) {
	claude = Timing{Think: e.ClaudeThink, Oversleep: e.Oversleep}
	human = Timing{Think: e.HumanThink, Oversleep: e.Oversleep}
	if claude.Pause, err = pauseDist(e.Pause, e.ClaudeThink); err != nil {
		return claude, human, field.Wrap("pause", err)
	}
	human.Pause, _ = pauseDist(e.Pause, e.HumanThink)
	for _, err := range []error{
		BoundSleep("claude_think", e.ClaudeThink.Max), BoundSleep("human_think", e.HumanThink.Max),
		BoundSleep("pause", max(claude.Pause.Max, human.Pause.Max)), BoundSleep("oversleep", max(e.Oversleep.Fixed, e.Oversleep.Max)),
	} {
		if err != nil {
			return claude, human, err
		}
	}
	return claude, human, nil
}

// maxSleep bounds a pause, a think time or an oversleep: a minute per edit
// is already days for a run of the published setup on the real clock.
const maxSleep = time.Minute

// BoundSleep refuses a sleep longer than maxSleep.
func BoundSleep(name string, d time.Duration) error {
	return field.AtMostDuration(name, d, maxSleep, "every edit sleeps it: a run of 100 edits per editor would last hours on the real clock")
}

// DescribeLoop says how the editing runs against target: "virtual clock, seeds
// 1-5, 100 edits per editor, claude think 20ms-80ms, human think 5ms-40ms,
// pause think", then the oversleep and the timing profile when there are any.
func (e Editing) DescribeLoop(env Env, target contract.Target) string {
	s := fmt.Sprintf("%s, %s, %s per editor, claude think %s, human think %s, pause %s",
		env.DescribeRun(target), SeedsText(env.Seeds), plural.Count(e.Edits, "edit"), e.ClaudeThink, e.HumanThink, e.Pause)
	if e.Pause == PauseUniform0 {
		s += " (U(0, each editor's think maximum))"
	}
	return s + DescribeOversleep(e.Oversleep, env) + describeTiming(e.Timing)
}

// DescribeOversleep says how sleeps are lengthened, "" when they are not.
func DescribeOversleep(o Oversleep, env Env) string {
	if o.IsZero() {
		return ""
	}
	s := ", every pause and think lengthened by " + o.Formula()
	if env.Clock == ClockReal {
		s += " on top of what the operating system adds"
	}
	return s
}

// describeTiming names a profile other than the default, with its basis.
func describeTiming(p TimingModel) string {
	if p == TimingDefault {
		return ""
	}
	return "; timing " + p.Name() + ": " + p.Basis()
}

// ValidateModes checks env against target, that modes (the field called
// name) lists at least one mode, and that target serves the variant the runs
// of each ask for.
func ValidateModes[M any](env Env, target contract.Target, name string, modes []M, variant func(M) contract.Variant) error {
	if err := env.Validate(target); err != nil {
		return err
	}
	if len(modes) == 0 {
		return fieldErr(name, "no %s given", name)
	}
	for _, m := range modes {
		if err := CheckServed(target, name, variant(m)); err != nil {
			return err
		}
	}
	return nil
}

// RunEngine runs every mode on every seed with the race engine against rt,
// modes outer, spec making the run of one, and folds the runs into rows.
func RunEngine[M any, Row results.Row](ctx context.Context, env Env, rt Runtime, seeds []uint64, modes []M,
	spec func(m M, seed uint64) RaceSpec, fold func([]results.RaceRun) ([]Row, error)) (Result[Row, results.RaceRun], error) {
	var res Result[Row, results.RaceRun]
	runs, err := runJobs(ctx, env, rt, seeds, modes, func(ctx context.Context, m M, seed uint64) (results.RaceRun, error) {
		return runRace(ctx, env, rt, seed, spec(m, seed))
	})
	if err != nil {
		return res, err
	}
	res.Runs = runs
	res.Rows, err = fold(runs)
	return res, err
}

// FoldModes folds runs into one row per mode, in the order of modes, each
// from the runs that belong to it.
func FoldModes[M any, Run any, Row any](modes []M, runs []Run, belongs func(M, Run) bool, fold func([]Run) Row) ([]Row, error) {
	rows := make([]Row, 0, len(modes))
	for _, m := range modes {
		var mine []Run
		for _, r := range runs {
			if belongs(m, r) {
				mine = append(mine, r)
			}
		}
		if len(mine) == 0 {
			return nil, fmt.Errorf("no runs of %v to fold", m)
		}
		rows = append(rows, fold(mine))
	}
	return rows, nil
}

// RaceSpec is one run of the race engine.
type RaceSpec struct {
	Name          string
	Variant       contract.Variant
	Policy        Policy
	Edits         int
	Claude, Human Timing
	// OnSheet puts the person on a Sheet tab, one new cell per edit,
	// instead of appending lines to the text (tabs).
	OnSheet bool
	// Reissue: the editors send a write whose outcome they do not know
	// again (race's --reissue).
	Reissue bool
}

// runRace runs claude and the person against a fresh Note of rt's target,
// recording in rt's history, and counts what the final Note lacks of what
// the store acknowledged.
func runRace(ctx context.Context, env Env, rt Runtime, seed uint64, spec RaceSpec) (run results.RaceRun, err error) {
	clock := env.newClock()
	variant := spec.Variant.WithDefaults()
	policy := spec.Policy
	if variant.Guard == contract.GuardNone {
		policy = ""
	}
	// A setup the server failed is the seed's outcome, not the run's end.
	setup := func(err error) (results.RaceRun, error) {
		failed, stop := SetupFailed(ctx, spec.Name, err)
		return results.RaceRun{Seed: seed, Guard: string(variant.Guard), Policy: string(policy), VersionFormat: string(variant.VersionFormat), SetupFailed: failed}, stop
	}
	st, err := OpenRun(ctx, rt.Target, contract.RunSpec{Name: spec.Name, Variant: variant, Clock: env.storeClock(clock), Seed: seed})
	if err != nil {
		return setup(err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	if err := st.CreateNote(ctx, noteID); err != nil {
		return setup(err)
	}
	conns := make([]contract.Session, 3) // claude, human, and one to set up and check
	for i := range conns {
		if conns[i], err = st.Session(ctx); err != nil {
			return setup(err)
		}
		defer func(c contract.Session) { err = errors.Join(err, c.Close()) }(conns[i])
	}
	check := conns[2]
	sheetID := ""
	if spec.OnSheet {
		l, err := check.ListNoteTabs(ctx, noteID)
		if err != nil {
			return setup(err)
		}
		tab, err := check.CreateNoteTab(ctx, contract.CreateRequest{NoteID: noteID, ExpectedVersion: l.Version,
			IdempotencyKey: "setup-sheet", TabType: contract.TypeSheet, Label: "Data"})
		if err != nil {
			return setup(err)
		}
		sheetID = tab.TabID
	}

	rec, err := OpenRecorder(rt.History, rt.Target, history.RunHeader{Run: spec.Name, Seed: seed, Clock: string(env.Clock), Variant: variant, Policy: string(policy)}, clock)
	if err != nil {
		return run, err
	}
	budget, tries := NewErrorBudget(env.MaxErrors).until(rt.StopAt, env.Clock), triesBound(2*spec.Edits)
	claude := &editor{name: "claude", conn: Recorded(rec, conns[0], "claude"), clock: clock, rand: Stream(seed, "claude"), timing: spec.Claude, policy: spec.Policy, errors: budget, maxTries: tries, reissue: spec.Reissue}
	human := &editor{name: "human", conn: Recorded(rec, conns[1], "human"), clock: clock, rand: Stream(seed, "human"), timing: spec.Human, policy: spec.Policy, errors: budget, maxTries: tries, reissue: spec.Reissue}
	humanEdit := func(i int) edit { return appendLine(noteID, lineName("human", i)) }
	if spec.OnSheet {
		humanEdit = func(i int) edit { return setCell(noteID, sheetID, i, lineName("human", i)) }
	}
	stopFaults := InjectFaults(st, rec)
	start := clock.Now()
	err = clock.Run(ctx,
		func(ctx context.Context) error {
			return claude.run(ctx, noteID, spec.Edits, func(i int) edit { return appendLine(noteID, lineName("claude", i)) })
		},
		func(ctx context.Context) error { return human.run(ctx, noteID, spec.Edits, humanEdit) },
	)
	faults := stopFaults()
	limit, stopped := StoppedBy(err)
	if err != nil && !stopped {
		return run, err
	}
	wall := clock.Now().Sub(start)
	text, unreadable, err := readFinal(ctx, clock, check, noteID, "markdown")
	if err != nil && stopped {
		return run, fmt.Errorf("%s; its final state could not be read either", limit.Error())
	}
	if err != nil {
		return run, err
	}
	claude.stats.Lost = countLostLines(text.Text, "claude", claude.acked)
	claude.stats.Duplicates = countDuplicateLines(text.Text, "claude")
	if spec.OnSheet {
		sheet, why, err := readFinal(ctx, clock, check, noteID, sheetID)
		if err != nil {
			return run, err
		}
		var cells [][]any
		if len(sheet.Sheets) > 0 {
			cells = sheet.Sheets[0].Cells
		}
		human.stats.Lost = countLostCells(cells, human.acked)
		unreadable = cmp.Or(unreadable, why)
	} else {
		human.stats.Lost = countLostLines(text.Text, "human", human.acked)
		human.stats.Duplicates = countDuplicateLines(text.Text, "human")
	}
	if err := endRun(ctx, rec, check, unreadable, noteID); err != nil {
		return run, err
	}
	if unreadable != "" {
		unreadable = spec.Name + ": " + unreadable
	}
	run = results.RaceRun{
		Seed: seed, Guard: string(variant.Guard), Policy: string(policy), VersionFormat: string(variant.VersionFormat),
		Claude: claude.stats, Human: human.stats, WallS: wall.Seconds(), Unreadable: unreadable, Faults: faults,
	}
	switch {
	case stopped:
		run.Stopped = spec.Name + ": " + limit.Error()
	case budget.timedOut.Load():
		run.Stopped = fmt.Sprintf("%s: stopped at its time limit after %d of its %d edits", spec.Name, run.Intended(), 2*spec.Edits)
	}
	return run, nil
}

// countLostCells counts the person's acknowledged cells (row i, column 0 holding
// human-i) that the sheet no longer holds.
func countLostCells(cells [][]any, acked []int) int {
	lost := 0
	for _, i := range acked {
		if i >= len(cells) || len(cells[i]) == 0 || cells[i][0] != lineName("human", i) {
			lost++
		}
	}
	return lost
}
