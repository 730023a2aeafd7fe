package experiment

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A start time ahead holds a run until then; a time passed or too far ahead
// is refused, and the wait ends with its context.
func TestStart(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ in, want string }{
		{"2026-12-01T14:30:00Z", ""},
		{"2026-12-01T13:59:00Z", "has passed (1m0s ago)"},
		{"2026-12-03T14:30:00Z", "is more than 24h0m0s ahead"},
		{"14:30", "is not a time such as"},
	} {
		_, err := ParseStart(tc.in, now)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitUntil(ctx, time.Now().Add(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Errorf("a wait past its context: %v", err)
	}
	if err := waitUntil(context.Background(), time.Now().Add(-time.Second)); err != nil {
		t.Errorf("a wait for a time passed: %v", err)
	}
}
