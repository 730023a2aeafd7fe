package race

import (
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/sim"
)

func TestTimingConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		mutate func(*Config)
		want   string
	}{
		{func(c *Config) { c.Timing = "guess" }, `timing: unknown timing "guess" (want default or published-fit)`},
		{func(c *Config) { c.Editing = c.WithTiming(sim.TimingPublishedFit); c.Pause = "0" },
			"timing: published-fit sets pause uniform0 and oversleep slack:d/4,max=5ms; this configuration has pause 0, oversleep slack:d/4,max=5ms"},
		{func(c *Config) { c.Pause = "uniform" }, "pause: uniform: not a duration (want think, uniform0, a duration or a range such as 10ms-70ms)"},
	} {
		cfg := Default()
		tc.mutate(&cfg)
		if err := cfg.Validate(simtest.MemTarget); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
