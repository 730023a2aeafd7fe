package fast_test

import (
	"testing"
	"time"

	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
)

// Only millisecond versions lose lines when commits come fast: at 200 µs per
// store operation about five commits share each millisecond, so ms versions
// collide in every run, while us-suffix and counter versions never do. (The
// counts at the published setup are pinned by the fast baseline.)
func TestFastOnlyMillisecondsLose(t *testing.T) {
	seeds := uint64(6)
	if testpass.Race {
		seeds = 3 // make test's time: make test-large runs 6
	}
	cfg := fast.Default()
	cfg.Env = simtest.VirtualEnv(simtest.Seeds(1, seeds))
	cfg.ServiceTime = 200 * time.Microsecond
	cfg.Edits = 150
	runs := simtest.MustRun(t, cfg).Runs
	rows, err := cfg.Fold(runs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		switch r.VersionFormat {
		case "ms":
			if r.RunsWithLoss != r.Runs || r.Lost == 0 {
				t.Errorf("ms versions: %+v, want a loss in every run", r)
			}
		default:
			if r.Lost != 0 {
				t.Errorf("%s versions: %+v, want no loss", r.VersionFormat, r)
			}
		}
	}
}
