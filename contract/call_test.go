package contract

import (
	"errors"
	"fmt"
	"testing"
)

// Every contract outcome, wrapped or not, is an outcome and has a result
// object; any other error has neither.
func TestIsOutcomeAgreesWithResultOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&ConflictError{Current: "3"}, true},
		{&NotFoundError{Field: "tab_id", ID: "t9"}, true},
		{&InvalidArgumentError{Field: "operation", Message: "bad"}, true},
		{&SchemaError{Violations: []Violation{{Path: "/expected_version", Message: "required"}}}, true},
		{fmt.Errorf("edit: %w", &ConflictError{Current: "4"}), true},
		{errors.New("database is locked"), false},
		{nil, false},
	} {
		_, result := ResultOf(tc.err)
		if got := IsOutcome(tc.err); got != tc.want || result != tc.want {
			t.Errorf("%v: IsOutcome %v, ResultOf %v; want %v", tc.err, got, result, tc.want)
		}
	}
}
