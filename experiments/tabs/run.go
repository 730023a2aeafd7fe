package tabs

import (
	"context"
	"fmt"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Config configures the tabs experiment: claude appends lines to the text tab while the
// person writes cells in a Sheet tab, under each version scope.
type Config struct {
	sim.Env
	Scopes []contract.Guard `json:"scopes"`
	sim.Editing
}

var _ sim.Runner[Row, results.RaceRun] = Config{}

// Default is the published tabs setup.
func Default() Config {
	env := sim.PublishedEnv()
	env.Seeds = []uint64{1, 2, 3}
	return Config{Env: env, Scopes: []contract.Guard{contract.GuardNote, contract.GuardTab}, Editing: sim.PublishedEditing()}
}

// variant is the contract variant the runs of scope g ask for.
func (Config) variant(g contract.Guard) contract.Variant { return contract.Variant{Guard: g} }

// Validate checks the configuration, and that target serves each scope's
// variant; its errors are *field.Error.
func (c Config) Validate(target contract.Target) error {
	if err := sim.ValidateModes(c.Env, target, "scopes", c.Scopes, c.variant); err != nil {
		return err
	}
	return c.Editing.Check()
}

// Run runs every scope on every seed, scopes outer.
func (c Config) Run(ctx context.Context, rt sim.Runtime, seeds []uint64) (sim.Result[Row, results.RaceRun], error) {
	if err := c.Validate(rt.Target); err != nil {
		return sim.Result[Row, results.RaceRun]{}, err
	}
	claude, human, _ := c.Timings()
	return sim.RunEngine(ctx, c.Env, rt, seeds, c.Scopes, func(g contract.Guard, seed uint64) sim.RaceSpec {
		return sim.RaceSpec{
			Name:    fmt.Sprintf("tabs-%s-seed%d", g, seed),
			Variant: c.variant(g),
			Policy:  sim.Reapply,
			Edits:   c.Edits,
			Claude:  claude,
			Human:   human,
			OnSheet: true,
		}
	}, c.Fold)
}

// Fold folds runs into one row per scope, in the order of c.Scopes.
func (c Config) Fold(runs []results.RaceRun) ([]Row, error) {
	return sim.FoldModes(c.Scopes, runs, func(g contract.Guard, r results.RaceRun) bool { return r.Guard == string(g) }, Summarize)
}

// Describe implements sim.Runner.
func (c Config) Describe(target contract.Target) string { return c.Editing.DescribeLoop(c.Env, target) }
