package fast

import (
	"context"
	"errors"
	"fmt"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Config configures the fast experiment: no think time and, by default, no pause, so
// commits come as fast as the store takes them, under each version format.
//
// Pause, when set, is a distribution (as ParseDist reads it) both editors
// pause for before each read; Oversleep lengthens those pauses. Fast has no
// think time, so neither pause rule of the race (think, uniform0) applies,
// and an oversleep without a pause lengthens nothing. No pause is "" in the
// JSON, however it was written.
type Config struct {
	sim.Env
	Formats   []contract.VersionFormat `json:"formats"`
	Edits     int                      `json:"edits"`
	Pause     string                   `json:"pause"`
	Oversleep sim.Oversleep            `json:"oversleep"`
}

var _ sim.Runner[Row, results.RaceRun] = Config{}

// Default is the published fast setup.
func Default() Config {
	return Config{Env: sim.PublishedEnv(), Formats: []contract.VersionFormat{contract.FormatMS, contract.FormatUSSuffix, contract.FormatCounter}, Edits: 2000}
}

// variant is the contract variant the runs of version format f ask for.
func (Config) variant(f contract.VersionFormat) contract.Variant {
	return contract.Variant{Guard: contract.GuardNote, VersionFormat: f}
}

// Validate checks the configuration, and that target serves each version
// format's variant; its errors are *field.Error.
func (c Config) Validate(target contract.Target) error {
	if err := sim.ValidateModes(c.Env, target, "formats", c.Formats, c.variant); err != nil {
		return err
	}
	if err := sim.ValidateEdits(c.Edits); err != nil {
		return err
	}
	_, err := c.timing()
	return err
}

// timing returns both editors' timing: the pause, no think time, and the
// oversleep.
func (c Config) timing() (sim.Timing, error) {
	t := sim.Timing{Oversleep: c.Oversleep}
	if c.Pause == "" {
		return t, nil
	}
	if c.Pause == sim.PauseThink || c.Pause == sim.PauseUniform0 {
		return t, field.Wrap("pause", errNoPauseRule)
	}
	var err error
	if t.Pause, err = sim.ParseDist(c.Pause); err != nil {
		return t, field.Wrap("pause", err)
	}
	if err := sim.BoundSleep("pause", t.Pause.Max); err != nil {
		return t, err
	}
	return t, sim.BoundSleep("oversleep", max(c.Oversleep.Fixed, c.Oversleep.Max))
}

// Run runs every version format on every seed, formats outer.
func (c Config) Run(ctx context.Context, rt sim.Runtime, seeds []uint64) (sim.Result[Row, results.RaceRun], error) {
	if err := c.Validate(rt.Target); err != nil {
		return sim.Result[Row, results.RaceRun]{}, err
	}
	timing, _ := c.timing()
	return sim.RunEngine(ctx, c.Env, rt, seeds, c.Formats, func(f contract.VersionFormat, seed uint64) sim.RaceSpec {
		return sim.RaceSpec{
			Name:    fmt.Sprintf("fast-%s-seed%d", f, seed),
			Variant: c.variant(f),
			Policy:  sim.Reapply,
			Edits:   c.Edits,
			Claude:  timing,
			Human:   timing,
		}
	}, c.Fold)
}

// Fold folds runs into one row per version format, in the order of c.Formats.
func (c Config) Fold(runs []results.RaceRun) ([]Row, error) {
	return sim.FoldModes(c.Formats, runs, func(f contract.VersionFormat, r results.RaceRun) bool { return r.VersionFormat == string(f) }, Summarize)
}

// Describe implements sim.Runner.
func (c Config) Describe(target contract.Target) string {
	pause := "no pause"
	if t, err := c.timing(); err == nil && t.Pause != (sim.Dist{}) {
		pause = "pause " + t.Pause.String()
	}
	return fmt.Sprintf("%s, %s, %s per editor, no think time, %s%s, guard note, reapply",
		c.Env.DescribeRun(target), sim.SeedsText(c.Seeds), plural.Count(c.Edits, "edit"), pause, sim.DescribeOversleep(c.Oversleep, c.Env))
}

// keepPublishedRows keeps the formats a published row stands for.
func (c *Config) keepPublishedRows() {
	exp, _ := results.Lookup("fast")
	var published []contract.VersionFormat
	for _, f := range c.Formats {
		if _, ok := exp.Match(map[string]string{"version_format": string(f)}); ok {
			published = append(published, f)
		}
	}
	c.Formats = published
}

// errNoPauseRule is fast's answer to a pause rule that needs a think range.
var errNoPauseRule = errors.New("fast has no think time: give a duration or a range, such as 0 or 0-2ms")
