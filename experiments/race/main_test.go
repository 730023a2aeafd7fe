package race_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine outlives a test: the engine's editors, workers and clocks
// stop with the run.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
