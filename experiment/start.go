package experiment

import (
	"context"
	"fmt"
	"time"
)

// MaxStartAhead bounds how far ahead a start time may be.
const MaxStartAhead = 24 * time.Hour

// ParseStart reads a start time, RFC 3339, that must be ahead of now, by at
// most MaxStartAhead: a barrier already passed would not start the
// processes together.
func ParseStart(s string, now time.Time) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, fmt.Errorf("%q is not a time such as 2026-12-01T14:30:00Z (RFC 3339)", s)
	}
	switch {
	case t.Before(now):
		return t, fmt.Errorf("%s has passed (%s ago): the runs would not start together", s, now.Sub(t).Round(time.Second))
	case t.Sub(now) > MaxStartAhead:
		return t, fmt.Errorf("%s is more than %s ahead", s, MaxStartAhead)
	}
	return t, nil
}

// waitUntil returns at t (at once for the zero time), or with ctx's error
// when ctx ends first.
func waitUntil(ctx context.Context, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
