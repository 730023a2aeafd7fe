package fast

import (
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/sim"
)

func TestFastPauseRule(t *testing.T) {
	f := Default()
	f.Pause = sim.PauseUniform0
	if err := f.Validate(simtest.MemTarget); err == nil || err.Error() != "pause: fast has no think time: give a duration or a range, such as 0 or 0-2ms" {
		t.Errorf("fast pause uniform0: %v", err)
	}
}
