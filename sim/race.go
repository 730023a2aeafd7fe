package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/contract"
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

// ParseModes parses a comma-separated list of guard/policy pairs, such as
// "none,note/reapply,note/refresh". A guard of none needs no policy, since
// nothing ever conflicts.
func ParseModes(s string) ([]Mode, error) {
	var modes []Mode
	seen := map[Mode]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		guard, policy, hasPolicy := strings.Cut(item, "/")
		g, err := contract.ParseGuard(guard)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		m := Mode{Guard: g, Policy: Reapply}
		switch {
		case hasPolicy:
			if m.Policy, err = ParsePolicy(policy); err != nil {
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

// PauseThink is the Pause setting that draws each editor's pause from its own
// think distribution, the default.
const PauseThink = "think"

// RaceConfig configures the race experiment and, through Tabs and Fast, its two
// variants.
type RaceConfig struct {
	Env
	Modes         []Mode                 `json:"modes"`
	Edits         int                    `json:"edits"`
	ClaudeThink   Dist                   `json:"claude_think"`
	HumanThink    Dist                   `json:"human_think"`
	Pause         string                 `json:"pause"`
	VersionFormat contract.VersionFormat `json:"version_format"`
}

// DefaultRace is the published race setup.
func DefaultRace() RaceConfig {
	return RaceConfig{
		Env:           Env{Clock: ClockReal, ServiceTime: DefaultServiceTime, Seeds: []uint64{1, 2, 3, 4, 5}, Synchronous: "normal"},
		Modes:         []Mode{{contract.GuardNone, Reapply}, {contract.GuardNote, Reapply}, {contract.GuardNote, Refresh}},
		Edits:         100,
		ClaudeThink:   Dist{Min: 20e6, Max: 80e6},
		HumanThink:    Dist{Min: 5e6, Max: 40e6},
		Pause:         PauseThink,
		VersionFormat: contract.FormatCounter,
	}
}

// Validate checks the configuration; errors name the flag.
func (c RaceConfig) Validate() error {
	if err := c.Env.Validate(); err != nil {
		return err
	}
	if c.Edits < 1 {
		return errors.New("--edits: must be at least 1")
	}
	if len(c.Modes) == 0 {
		return errors.New("--modes: no modes given")
	}
	_, _, err := c.timings()
	return err
}

// timings returns each editor's pause and think distributions.
func (c RaceConfig) timings() (claude, human Timing, err error) {
	claude = Timing{Pause: c.ClaudeThink, Think: c.ClaudeThink}
	human = Timing{Pause: c.HumanThink, Think: c.HumanThink}
	if c.Pause != PauseThink {
		p, err := ParseDist(c.Pause)
		if err != nil {
			return claude, human, fmt.Errorf("--pause: %w", err)
		}
		claude.Pause, human.Pause = p, p
	}
	return claude, human, nil
}

// Race runs every mode on every seed and returns one run per (mode, seed), modes
// outer, in the order given.
func Race(ctx context.Context, cfg RaceConfig) ([]results.RaceRun, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	claude, human, _ := cfg.timings()
	return runJobs(ctx, cfg.Env, cfg.Modes, func(ctx context.Context, m Mode, seed uint64) (results.RaceRun, error) {
		return runRace(ctx, cfg.Env, seed, raceSpec{
			name:    fmt.Sprintf("race-%s-%s-seed%d", m.Guard, m.Policy, seed),
			variant: contract.Variant{Guard: m.Guard, VersionFormat: cfg.VersionFormat},
			policy:  m.Policy,
			edits:   cfg.Edits,
			claude:  claude,
			human:   human,
		})
	})
}

// TabsConfig configures the tabs experiment: claude appends lines to the text tab
// while the person writes cells in a Sheet tab, under each version scope.
type TabsConfig struct {
	Env
	Scopes      []contract.Guard `json:"scopes"`
	Edits       int              `json:"edits"`
	ClaudeThink Dist             `json:"claude_think"`
	HumanThink  Dist             `json:"human_think"`
	Pause       string           `json:"pause"`
}

// DefaultTabs is the published tabs setup.
func DefaultTabs() TabsConfig {
	r := DefaultRace()
	r.Seeds = []uint64{1, 2, 3}
	return TabsConfig{Env: r.Env, Scopes: []contract.Guard{contract.GuardNote, contract.GuardTab}, Edits: r.Edits,
		ClaudeThink: r.ClaudeThink, HumanThink: r.HumanThink, Pause: r.Pause}
}

func (c TabsConfig) race() RaceConfig {
	return RaceConfig{Env: c.Env, Modes: []Mode{{contract.GuardNote, Reapply}}, Edits: c.Edits,
		ClaudeThink: c.ClaudeThink, HumanThink: c.HumanThink, Pause: c.Pause}
}

// Validate checks the configuration; errors name the flag.
func (c TabsConfig) Validate() error {
	if len(c.Scopes) == 0 {
		return errors.New("--scopes: no scopes given")
	}
	return c.race().Validate()
}

// Tabs runs every scope on every seed, scopes outer.
func Tabs(ctx context.Context, cfg TabsConfig) ([]results.RaceRun, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	claude, human, _ := cfg.race().timings()
	return runJobs(ctx, cfg.Env, cfg.Scopes, func(ctx context.Context, g contract.Guard, seed uint64) (results.RaceRun, error) {
		return runRace(ctx, cfg.Env, seed, raceSpec{
			name:    fmt.Sprintf("tabs-%s-seed%d", g, seed),
			variant: contract.Variant{Guard: g},
			policy:  Reapply,
			edits:   cfg.Edits,
			claude:  claude,
			human:   human,
			onSheet: true,
		})
	})
}

// FastConfig configures the fast experiment: no think time and no pause, so
// commits come as fast as the store takes them, under each version format.
type FastConfig struct {
	Env
	Formats []contract.VersionFormat `json:"formats"`
	Edits   int                      `json:"edits"`
}

// DefaultFast is the published fast setup.
func DefaultFast() FastConfig {
	r := DefaultRace()
	return FastConfig{Env: r.Env, Formats: []contract.VersionFormat{contract.FormatMS, contract.FormatUSSuffix, contract.FormatCounter}, Edits: 2000}
}

// Validate checks the configuration; errors name the flag.
func (c FastConfig) Validate() error {
	if len(c.Formats) == 0 {
		return errors.New("--formats: no formats given")
	}
	return RaceConfig{Env: c.Env, Modes: []Mode{{}}, Edits: c.Edits, Pause: "0"}.Validate()
}

// Fast runs every version format on every seed, formats outer.
func Fast(ctx context.Context, cfg FastConfig) ([]results.RaceRun, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	zero := Timing{}
	return runJobs(ctx, cfg.Env, cfg.Formats, func(ctx context.Context, f contract.VersionFormat, seed uint64) (results.RaceRun, error) {
		return runRace(ctx, cfg.Env, seed, raceSpec{
			name:    fmt.Sprintf("fast-%s-seed%d", f, seed),
			variant: contract.Variant{Guard: contract.GuardNote, VersionFormat: f},
			policy:  Reapply,
			edits:   cfg.Edits,
			claude:  zero,
			human:   zero,
		})
	})
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
}

// runRace runs claude and the person against a fresh Note and counts what the
// final Note lacks of what the store acknowledged.
func runRace(ctx context.Context, env Env, seed uint64, spec raceSpec) (run results.RaceRun, err error) {
	clock := env.newClock()
	variant := spec.variant.WithDefaults()
	st, err := env.Target.Open(ctx, contract.RunSpec{Name: spec.name, Variant: variant, Clock: env.storeClock(clock), Seed: seed})
	if err != nil {
		return run, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	if err := st.CreateNote(ctx, noteID); err != nil {
		return run, err
	}
	conns := make([]contract.Session, 3) // claude, human, and one to set up and check
	for i := range conns {
		if conns[i], err = st.Session(ctx); err != nil {
			return run, err
		}
		defer func(c contract.Session) { err = errors.Join(err, c.Close()) }(conns[i])
	}
	check := conns[2]
	sheetID := ""
	if spec.onSheet {
		l, err := check.ListNoteTabs(ctx, noteID)
		if err != nil {
			return run, err
		}
		tab, err := check.CreateNoteTab(ctx, contract.CreateRequest{NoteID: noteID, ExpectedVersion: l.Version,
			IdempotencyKey: "setup-sheet", TabType: contract.TypeSheet, Label: "Data"})
		if err != nil {
			return run, err
		}
		sheetID = tab.TabID
	}

	claude := &editor{name: "claude", conn: conns[0], clock: clock, rand: Stream(seed, "claude"), timing: spec.claude, policy: spec.policy}
	human := &editor{name: "human", conn: conns[1], clock: clock, rand: Stream(seed, "human"), timing: spec.human, policy: spec.policy}
	humanEdit := func(i int) edit { return appendLine(noteID, lineName("human", i)) }
	if spec.onSheet {
		humanEdit = func(i int) edit { return setCell(noteID, sheetID, i, lineName("human", i)) }
	}
	start := clock.Now()
	err = clock.Run(ctx,
		func(ctx context.Context) error {
			return claude.run(ctx, noteID, spec.edits, func(i int) edit { return appendLine(noteID, lineName("claude", i)) })
		},
		func(ctx context.Context) error { return human.run(ctx, noteID, spec.edits, humanEdit) },
	)
	if err != nil {
		return run, err
	}
	wall := clock.Now().Sub(start)

	text, err := check.ReadNoteTab(ctx, noteID, "markdown")
	if err != nil {
		return run, err
	}
	claude.stats.Lost = countLostLines(text.Text, "claude", claude.acked)
	if spec.onSheet {
		sheet, err := check.ReadNoteTab(ctx, noteID, sheetID)
		if err != nil {
			return run, err
		}
		human.stats.Lost = countLostCells(sheet.Sheets[0].Cells, human.acked)
	} else {
		human.stats.Lost = countLostLines(text.Text, "human", human.acked)
	}
	policy := spec.policy
	if variant.Guard == contract.GuardNone {
		policy = ""
	}
	return results.RaceRun{
		Seed: seed, Guard: string(variant.Guard), Policy: string(policy), VersionFormat: string(variant.VersionFormat),
		Claude: claude.stats, Human: human.stats, WallS: wall.Seconds(),
	}, nil
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
