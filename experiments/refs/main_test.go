package refs

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine outlives a test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
