package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/results"
)

// noteID is the Note every race runs on.
const noteID = "note-1"

// Mode is one row of the race table: a version guard and a conflict policy.
type Mode struct {
	Guard  contract.Guard `json:"guard"`
	Policy Policy         `json:"policy"`
}

func (m Mode) String() string {
	if m.Guard == contract.GuardNone {
		return "none"
	}
	return string(m.Guard) + "/" + string(m.Policy)
}

// MarshalText writes the mode as ParseModes reads it.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode written by MarshalText: a configuration read
// back from its record (notesbench merge) has the modes it ran.
func (m *Mode) UnmarshalText(b []byte) error {
	modes, err := ParseModes(string(b))
	if err != nil {
		return err
	}
	if len(modes) != 1 {
		return fmt.Errorf("%q is not one mode", b)
	}
	*m = modes[0]
	return nil
}

// ParseModes parses a comma-separated list of guard/policy pairs, such as
// "none,note/reapply,note/refresh". A guard of none needs no policy, since
// nothing ever conflicts.
func ParseModes(s string) ([]Mode, error) {
	var modes []Mode
	seen := map[Mode]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		guard, policy, hasPolicy := strings.Cut(item, "/")
		g, err := contract.Guards.Parse(guard)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		m := Mode{Guard: g, Policy: Reapply}
		switch {
		case hasPolicy && g == contract.GuardNone:
			return nil, fmt.Errorf("%q: guard none takes no policy (nothing ever conflicts): write none", item)
		case hasPolicy:
			if m.Policy, err = Policies.Parse(policy); err != nil {
				return nil, fmt.Errorf("%q: %w", item, err)
			}
		case g != contract.GuardNone:
			return nil, fmt.Errorf("%q: a %s guard needs a policy, e.g. %s/reapply", item, g, g)
		}
		if seen[m] {
			return nil, fmt.Errorf("%q is listed twice", item)
		}
		seen[m] = true
		modes = append(modes, m)
	}
	return modes, nil
}

// FormatModes writes modes as ParseModes reads them, comma-separated.
func FormatModes(modes []Mode) string {
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = m.String()
	}
	return strings.Join(out, ",")
}

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

// publishedEditing is the editing loop of the published setup, under the
// default timing.
func publishedEditing() Editing {
	return Editing{Edits: 100, ClaudeThink: Dist{Min: 20e6, Max: 80e6}, HumanThink: Dist{Min: 5e6, Max: 40e6}, Pause: PauseThink}
}

// validate checks the editing parameters; its errors are *field.Error.
func (e Editing) validate() error {
	if err := validateEdits(e.Edits); err != nil {
		return err
	}
	if err := e.checkTiming(); err != nil {
		return err
	}
	_, _, err := e.timings()
	return err
}

// timings returns each editor's pause and think distributions and the
// oversleep of its sleeps.
func (e Editing) timings() (claude, human Timing, err error) {
	claude = Timing{Think: e.ClaudeThink, Oversleep: e.Oversleep}
	human = Timing{Think: e.HumanThink, Oversleep: e.Oversleep}
	if claude.Pause, err = pauseDist(e.Pause, e.ClaudeThink); err != nil {
		return claude, human, field.Wrap("pause", err)
	}
	human.Pause, _ = pauseDist(e.Pause, e.HumanThink)
	for _, err := range []error{
		boundSleep("claude_think", e.ClaudeThink.Max), boundSleep("human_think", e.HumanThink.Max),
		boundSleep("pause", max(claude.Pause.Max, human.Pause.Max)), boundSleep("oversleep", max(e.Oversleep.Fixed, e.Oversleep.Max)),
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

// boundSleep refuses a sleep longer than maxSleep.
func boundSleep(name string, d time.Duration) error {
	return field.AtMostDuration(name, d, maxSleep, "every edit sleeps it: a run of 100 edits per editor would last hours on the real clock")
}

// describe says how the editing runs against target: "virtual clock, seeds
// 1-5, 100 edits per editor, claude think 20ms-80ms, human think 5ms-40ms,
// pause think", then the oversleep and the timing profile when there are any.
func (e Editing) describe(env Env, target contract.Target) string {
	s := fmt.Sprintf("%s, %s, %s per editor, claude think %s, human think %s, pause %s",
		env.describe(target), SeedsText(env.Seeds), plural.Count(e.Edits, "edit"), e.ClaudeThink, e.HumanThink, e.Pause)
	if e.Pause == PauseUniform0 {
		s += " (U(0, each editor's think maximum))"
	}
	return s + describeOversleep(e.Oversleep, env) + describeTiming(e.Timing)
}

// describeOversleep says how sleeps are lengthened, "" when they are not.
func describeOversleep(o Oversleep, env Env) string {
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

// Race is the race experiment: claude and the person append lines to one text
// under each mode (guard and conflict policy).
type Race struct {
	Env
	Modes []Mode `json:"modes"`
	Editing
	VersionFormat contract.VersionFormat `json:"version_format"`
	// Reissue makes each editor send a write whose outcome it does not
	// know (its reply lost, its stream cut, its server killed) again, the
	// same call with the same idempotency key, as a new request, up to
	// MaxReissues times: what MCP 2026-07-28 asks of a client whose
	// response stream broke. Without it the editor gives the edit up.
	Reissue bool `json:"reissue,omitempty"`
}

var _ Configuration[Race, results.RaceRow, results.RaceRun] = Race{}

// DefaultRace is the published race setup.
func DefaultRace() Race {
	return Race{
		Env:           Env{Clock: ClockReal, ServiceTime: DefaultServiceTime, Seeds: []uint64{1, 2, 3, 4, 5}, Synchronous: contract.SyncNormal},
		Modes:         []Mode{{contract.GuardNone, Reapply}, {contract.GuardNote, Reapply}, {contract.GuardNote, Refresh}},
		Editing:       publishedEditing(),
		VersionFormat: contract.FormatCounter,
	}
}

// variant is the contract variant the runs of mode m ask for.
func (c Race) variant(m Mode) contract.Variant {
	return contract.Variant{Guard: m.Guard, VersionFormat: c.VersionFormat}
}

// Validate checks the configuration, and that target serves each mode's
// variant; its errors are *field.Error.
func (c Race) Validate(target contract.Target) error {
	if err := validateModes(c.Env, target, "modes", c.Modes, c.variant); err != nil {
		return err
	}
	return c.Editing.validate()
}

// Run runs every mode on every seed; the runs come back one per (mode, seed),
// modes outer, in the order given.
func (c Race) Run(ctx context.Context, rt Runtime, seeds []uint64) (Result[results.RaceRow, results.RaceRun], error) {
	if err := c.Validate(rt.Target); err != nil {
		return Result[results.RaceRow, results.RaceRun]{}, err
	}
	claude, human, _ := c.timings()
	return runEngine(ctx, c.Env, rt, seeds, c.Modes, func(m Mode, seed uint64) raceSpec {
		return raceSpec{
			name:    fmt.Sprintf("race-%s-seed%d", strings.ReplaceAll(m.String(), "/", "-"), seed),
			variant: c.variant(m),
			policy:  m.Policy,
			edits:   c.Edits,
			claude:  claude,
			human:   human,
			reissue: c.Reissue,
		}
	}, c.Fold)
}

// Fold folds runs into one row per mode, in the order of c.Modes.
func (c Race) Fold(runs []results.RaceRun) ([]results.RaceRow, error) {
	return foldModes(c.Modes, runs, func(m Mode, r results.RaceRun) bool {
		return r.Guard == string(m.Guard) && (m.Guard == contract.GuardNone || r.Policy == string(m.Policy))
	}, results.SummarizeRace)
}

// Describe implements Configuration.
func (c Race) Describe(target contract.Target) string {
	s := c.Editing.describe(c.Env, target)
	if c.Reissue {
		s += fmt.Sprintf(", a write whose outcome is unknown sent again with its key up to %d times", MaxReissues)
	}
	return s
}

// Replica implements Configuration.
func (c Race) Replica() Race { c.Env = c.Env.replica(); return c }

// OnClock implements Configuration.
func (c Race) OnClock(k ClockKind) Race { c.Clock = k; return c }

// WithTarget implements Configuration.
func (c Race) WithTarget(s TargetSettings) Race { c.TargetSettings = s; return c }

// validateModes checks env against target, that modes (the field called
// name) lists at least one mode, and that target serves the variant the runs
// of each ask for.
func validateModes[M any](env Env, target contract.Target, name string, modes []M, variant func(M) contract.Variant) error {
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

// runEngine runs every mode on every seed with the race engine against rt,
// modes outer, spec making the run of one, and folds the runs into rows.
func runEngine[M any, Row results.Row](ctx context.Context, env Env, rt Runtime, seeds []uint64, modes []M,
	spec func(m M, seed uint64) raceSpec, fold func([]results.RaceRun) ([]Row, error)) (Result[Row, results.RaceRun], error) {
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

// foldModes folds runs into one row per mode, in the order of modes, each
// from the runs that belong to it.
func foldModes[M any, Run any, Row any](modes []M, runs []Run, belongs func(M, Run) bool, fold func([]Run) Row) ([]Row, error) {
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

// Tabs is the tabs experiment: claude appends lines to the text tab while the
// person writes cells in a Sheet tab, under each version scope.
type Tabs struct {
	Env
	Scopes []contract.Guard `json:"scopes"`
	Editing
}

var _ Configuration[Tabs, results.TabsRow, results.RaceRun] = Tabs{}

// DefaultTabs is the published tabs setup.
func DefaultTabs() Tabs {
	r := DefaultRace()
	r.Seeds = []uint64{1, 2, 3}
	return Tabs{Env: r.Env, Scopes: []contract.Guard{contract.GuardNote, contract.GuardTab}, Editing: r.Editing}
}

// variant is the contract variant the runs of scope g ask for.
func (Tabs) variant(g contract.Guard) contract.Variant { return contract.Variant{Guard: g} }

// Validate checks the configuration, and that target serves each scope's
// variant; its errors are *field.Error.
func (c Tabs) Validate(target contract.Target) error {
	if err := validateModes(c.Env, target, "scopes", c.Scopes, c.variant); err != nil {
		return err
	}
	return c.Editing.validate()
}

// Run runs every scope on every seed, scopes outer.
func (c Tabs) Run(ctx context.Context, rt Runtime, seeds []uint64) (Result[results.TabsRow, results.RaceRun], error) {
	if err := c.Validate(rt.Target); err != nil {
		return Result[results.TabsRow, results.RaceRun]{}, err
	}
	claude, human, _ := c.timings()
	return runEngine(ctx, c.Env, rt, seeds, c.Scopes, func(g contract.Guard, seed uint64) raceSpec {
		return raceSpec{
			name:    fmt.Sprintf("tabs-%s-seed%d", g, seed),
			variant: c.variant(g),
			policy:  Reapply,
			edits:   c.Edits,
			claude:  claude,
			human:   human,
			onSheet: true,
		}
	}, c.Fold)
}

// Fold folds runs into one row per scope, in the order of c.Scopes.
func (c Tabs) Fold(runs []results.RaceRun) ([]results.TabsRow, error) {
	return foldModes(c.Scopes, runs, func(g contract.Guard, r results.RaceRun) bool { return r.Guard == string(g) }, results.SummarizeTabs)
}

// Describe implements Configuration.
func (c Tabs) Describe(target contract.Target) string { return c.Editing.describe(c.Env, target) }

// Replica implements Configuration.
func (c Tabs) Replica() Tabs { c.Env = c.Env.replica(); return c }

// OnClock implements Configuration.
func (c Tabs) OnClock(k ClockKind) Tabs { c.Clock = k; return c }

// WithTarget implements Configuration.
func (c Tabs) WithTarget(s TargetSettings) Tabs { c.TargetSettings = s; return c }

// Fast is the fast experiment: no think time and, by default, no pause, so
// commits come as fast as the store takes them, under each version format.
//
// Pause, when set, is a distribution (as ParseDist reads it) both editors
// pause for before each read; Oversleep lengthens those pauses. Fast has no
// think time, so neither pause rule of the race (think, uniform0) applies,
// and an oversleep without a pause lengthens nothing. No pause is "" in the
// JSON, however it was written.
type Fast struct {
	Env
	Formats   []contract.VersionFormat `json:"formats"`
	Edits     int                      `json:"edits"`
	Pause     string                   `json:"pause"`
	Oversleep Oversleep                `json:"oversleep"`
}

var _ Configuration[Fast, results.FastRow, results.RaceRun] = Fast{}

// DefaultFast is the published fast setup.
func DefaultFast() Fast {
	r := DefaultRace()
	return Fast{Env: r.Env, Formats: []contract.VersionFormat{contract.FormatMS, contract.FormatUSSuffix, contract.FormatCounter}, Edits: 2000}
}

// variant is the contract variant the runs of version format f ask for.
func (Fast) variant(f contract.VersionFormat) contract.Variant {
	return contract.Variant{Guard: contract.GuardNote, VersionFormat: f}
}

// Validate checks the configuration, and that target serves each version
// format's variant; its errors are *field.Error.
func (c Fast) Validate(target contract.Target) error {
	if err := validateModes(c.Env, target, "formats", c.Formats, c.variant); err != nil {
		return err
	}
	if err := validateEdits(c.Edits); err != nil {
		return err
	}
	_, err := c.timing()
	return err
}

// timing returns both editors' timing: the pause, no think time, and the
// oversleep.
func (c Fast) timing() (Timing, error) {
	t := Timing{Oversleep: c.Oversleep}
	if c.Pause == "" {
		return t, nil
	}
	if c.Pause == PauseThink || c.Pause == PauseUniform0 {
		return t, field.Wrap("pause", errNoPauseRule)
	}
	var err error
	if t.Pause, err = ParseDist(c.Pause); err != nil {
		return t, field.Wrap("pause", err)
	}
	if err := boundSleep("pause", t.Pause.Max); err != nil {
		return t, err
	}
	return t, boundSleep("oversleep", max(c.Oversleep.Fixed, c.Oversleep.Max))
}

// Run runs every version format on every seed, formats outer.
func (c Fast) Run(ctx context.Context, rt Runtime, seeds []uint64) (Result[results.FastRow, results.RaceRun], error) {
	if err := c.Validate(rt.Target); err != nil {
		return Result[results.FastRow, results.RaceRun]{}, err
	}
	timing, _ := c.timing()
	return runEngine(ctx, c.Env, rt, seeds, c.Formats, func(f contract.VersionFormat, seed uint64) raceSpec {
		return raceSpec{
			name:    fmt.Sprintf("fast-%s-seed%d", f, seed),
			variant: c.variant(f),
			policy:  Reapply,
			edits:   c.Edits,
			claude:  timing,
			human:   timing,
		}
	}, c.Fold)
}

// Fold folds runs into one row per version format, in the order of c.Formats.
func (c Fast) Fold(runs []results.RaceRun) ([]results.FastRow, error) {
	return foldModes(c.Formats, runs, func(f contract.VersionFormat, r results.RaceRun) bool { return r.VersionFormat == string(f) }, results.SummarizeFast)
}

// pauseText is the pause as Describe and Differences show it.
func (c Fast) pauseText() string {
	if c.Pause == "" {
		return "0"
	}
	return c.Pause
}

// Describe implements Configuration.
func (c Fast) Describe(target contract.Target) string {
	pause := "no pause"
	if t, err := c.timing(); err == nil && t.Pause != (Dist{}) {
		pause = "pause " + t.Pause.String()
	}
	return fmt.Sprintf("%s, %s, %s per editor, no think time, %s%s, guard note, reapply",
		c.Env.describe(target), SeedsText(c.Seeds), plural.Count(c.Edits, "edit"), pause, describeOversleep(c.Oversleep, c.Env))
}

// Replica implements Configuration: a replication for the verdicts also
// leaves out the formats no published row stands for (the counter, our
// control).
func (c Fast) Replica() Fast {
	c.Env = c.Env.replica()
	c.keepPublishedRows()
	return c
}

// OnClock implements Configuration.
func (c Fast) OnClock(k ClockKind) Fast { c.Clock = k; return c }

// WithTarget implements Configuration.
func (c Fast) WithTarget(s TargetSettings) Fast { c.TargetSettings = s; return c }

// keepPublishedRows keeps the formats a published row stands for.
func (c *Fast) keepPublishedRows() {
	exp, _ := results.Lookup("fast")
	var published []contract.VersionFormat
	for _, f := range c.Formats {
		if _, ok := exp.Match(map[string]string{"version_format": string(f)}); ok {
			published = append(published, f)
		}
	}
	c.Formats = published
}

// raceSpec is one run of the race engine.
type raceSpec struct {
	name          string
	variant       contract.Variant
	policy        Policy
	edits         int
	claude, human Timing
	// onSheet puts the person on a Sheet tab, one new cell per edit, instead of
	// appending lines to the text.
	onSheet bool
	// reissue: the editors send a write whose outcome they do not know
	// again (Race.Reissue).
	reissue bool
}

// runRace runs claude and the person against a fresh Note of rt's target,
// recording in rt's history, and counts what the final Note lacks of what
// the store acknowledged.
func runRace(ctx context.Context, env Env, rt Runtime, seed uint64, spec raceSpec) (run results.RaceRun, err error) {
	clock := env.newClock()
	variant := spec.variant.WithDefaults()
	policy := spec.policy
	if variant.Guard == contract.GuardNone {
		policy = ""
	}
	// A setup the server failed is the seed's outcome, not the run's end.
	setup := func(err error) (results.RaceRun, error) {
		failed, stop := SetupFailed(ctx, spec.name, err)
		return results.RaceRun{Seed: seed, Guard: string(variant.Guard), Policy: string(policy), VersionFormat: string(variant.VersionFormat), SetupFailed: failed}, stop
	}
	st, err := OpenRun(ctx, rt.Target, contract.RunSpec{Name: spec.name, Variant: variant, Clock: env.storeClock(clock), Seed: seed})
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
	if spec.onSheet {
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

	rec, err := OpenRecorder(rt.History, rt.Target, history.RunHeader{Run: spec.name, Seed: seed, Clock: string(env.Clock), Variant: variant, Policy: string(policy)}, clock)
	if err != nil {
		return run, err
	}
	budget, tries := NewErrorBudget(env.MaxErrors).until(rt.StopAt, env.Clock), triesBound(2*spec.edits)
	claude := &editor{name: "claude", conn: Recorded(rec, conns[0], "claude"), clock: clock, rand: Stream(seed, "claude"), timing: spec.claude, policy: spec.policy, errors: budget, maxTries: tries, reissue: spec.reissue}
	human := &editor{name: "human", conn: Recorded(rec, conns[1], "human"), clock: clock, rand: Stream(seed, "human"), timing: spec.human, policy: spec.policy, errors: budget, maxTries: tries, reissue: spec.reissue}
	humanEdit := func(i int) edit { return appendLine(noteID, lineName("human", i)) }
	if spec.onSheet {
		humanEdit = func(i int) edit { return setCell(noteID, sheetID, i, lineName("human", i)) }
	}
	stopFaults := InjectFaults(st, rec)
	start := clock.Now()
	err = clock.Run(ctx,
		func(ctx context.Context) error {
			return claude.run(ctx, noteID, spec.edits, func(i int) edit { return appendLine(noteID, lineName("claude", i)) })
		},
		func(ctx context.Context) error { return human.run(ctx, noteID, spec.edits, humanEdit) },
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
	if spec.onSheet {
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
		unreadable = spec.name + ": " + unreadable
	}
	run = results.RaceRun{
		Seed: seed, Guard: string(variant.Guard), Policy: string(policy), VersionFormat: string(variant.VersionFormat),
		Claude: claude.stats, Human: human.stats, WallS: wall.Seconds(), Unreadable: unreadable, Faults: faults,
	}
	switch {
	case stopped:
		run.Stopped = spec.name + ": " + limit.Error()
	case budget.timedOut.Load():
		run.Stopped = fmt.Sprintf("%s: stopped at its time limit after %d of its %d edits", spec.name, run.Intended(), 2*spec.edits)
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
