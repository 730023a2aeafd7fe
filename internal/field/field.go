// Package field is the error a configuration returns for a field it cannot
// use. Packages that validate configurations (sim, backend) return it with the
// field's name; the command layer maps the name to the flag that set the field,
// so that no package below it names a flag.
package field

import (
	"fmt"
	"time"

	"github.com/notesbench/notesbench/internal/plural"
)

// Error is a configuration field that cannot be used. Field is the field's
// JSON name in the configuration ("edits", "claude_think", "store").
type Error struct {
	Field string
	Err   error
}

func (e *Error) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error for name with a formatted message.
func Errorf(name, format string, args ...any) error {
	return &Error{Field: name, Err: fmt.Errorf(format, args...)}
}

// Wrap returns err as an *Error for name, or nil when err is nil.
func Wrap(name string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Field: name, Err: err}
}

// AtMost returns an *Error for name when v is above max, the largest value
// the field takes, saying why (what the work costs at that value); nil
// otherwise. Bounds stand beside the lower limits in each configuration's
// Validate, so that no input can hang the machine or exhaust its memory.
func AtMost[N int | int64 | uint64 | float64](name string, v, max N, why string) error {
	if v <= max {
		return nil
	}
	return Errorf(name, "must be at most %s (%s)", plural.Int(int64(max)), why)
}

// AtMostDuration is AtMost for a duration, its bound written as one
// ("1h0m0s").
func AtMostDuration(name string, v, max time.Duration, why string) error {
	if v <= max {
		return nil
	}
	return Errorf(name, "must be at most %s (%s)", max, why)
}
