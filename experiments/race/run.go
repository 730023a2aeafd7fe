package race

import (
	"context"
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Config configures the race experiment: claude and the person append lines to one text
// under each mode (guard and conflict policy).
type Config struct {
	sim.Env
	Modes []Mode `json:"modes"`
	sim.Editing
	VersionFormat contract.VersionFormat `json:"version_format"`
	// Reissue makes each editor send a write whose outcome it does not
	// know (its reply lost, its stream cut, its server killed) again, the
	// same call with the same idempotency key, as a new request, up to
	// MaxReissues times: what MCP 2026-07-28 asks of a client whose
	// response stream broke. Without it the editor gives the edit up.
	Reissue bool `json:"reissue,omitempty"`
}

var _ sim.Runner[Row, results.RaceRun] = Config{}

// Default is the published race setup.
func Default() Config {
	return Config{
		Env:           sim.PublishedEnv(),
		Modes:         []Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}, {Guard: contract.GuardNote, Policy: sim.Reapply}, {Guard: contract.GuardNote, Policy: sim.Refresh}},
		Editing:       sim.PublishedEditing(),
		VersionFormat: contract.FormatCounter,
	}
}

// variant is the contract variant the runs of mode m ask for.
func (c Config) variant(m Mode) contract.Variant {
	return contract.Variant{Guard: m.Guard, VersionFormat: c.VersionFormat}
}

// Validate checks the configuration, and that target serves each mode's
// variant; its errors are *field.Error.
func (c Config) Validate(target contract.Target) error {
	if err := sim.ValidateModes(c.Env, target, "modes", c.Modes, c.variant); err != nil {
		return err
	}
	return c.Editing.Check()
}

// Run runs every mode on every seed; the runs come back one per (mode, seed),
// modes outer, in the order given.
func (c Config) Run(ctx context.Context, rt sim.Runtime, seeds []uint64) (sim.Result[Row, results.RaceRun], error) {
	if err := c.Validate(rt.Target); err != nil {
		return sim.Result[Row, results.RaceRun]{}, err
	}
	claude, human, _ := c.Timings()
	return sim.RunEngine(ctx, c.Env, rt, seeds, c.Modes, func(m Mode, seed uint64) sim.RaceSpec {
		return sim.RaceSpec{
			Name:    fmt.Sprintf("race-%s-seed%d", strings.ReplaceAll(m.String(), "/", "-"), seed),
			Variant: c.variant(m),
			Policy:  m.Policy,
			Edits:   c.Edits,
			Claude:  claude,
			Human:   human,
			Reissue: c.Reissue,
		}
	}, c.Fold)
}

// Fold folds runs into one row per mode, in the order of c.Modes.
func (c Config) Fold(runs []results.RaceRun) ([]Row, error) {
	return sim.FoldModes(c.Modes, runs, func(m Mode, r results.RaceRun) bool {
		return r.Guard == string(m.Guard) && (m.Guard == contract.GuardNone || r.Policy == string(m.Policy))
	}, Summarize)
}

// Describe implements sim.Runner.
func (c Config) Describe(target contract.Target) string {
	s := c.Editing.DescribeLoop(c.Env, target)
	if c.Reissue {
		s += fmt.Sprintf(", a write whose outcome is unknown sent again with its key up to %d times", sim.MaxReissues)
	}
	return s
}
