package nemesis

import (
	"testing"
	"time"
)

// A pause gets a call timeout to outlast when none is given; a timeout
// given stands, and the other faults need none.
func TestCallTimeout(t *testing.T) {
	for _, tc := range []struct {
		kinds   []string
		timeout time.Duration
		want    time.Duration
	}{
		{[]string{"kill", "pause"}, 0, PauseTimeout},
		{[]string{"pause"}, 3 * time.Second, 3 * time.Second},
		{[]string{"kill", "lose-replies"}, 0, 0},
		{nil, 2 * time.Second, 2 * time.Second},
	} {
		if got := CallTimeout(tc.kinds, tc.timeout); got != tc.want {
			t.Errorf("%v, %v: %v, want %v", tc.kinds, tc.timeout, got, tc.want)
		}
	}
}
