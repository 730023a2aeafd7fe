package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// Every error a call can return ends in one of the three outcomes, and its
// kind is named: contract outcomes and refusals are Fail, anything else Info.
func TestOutcomeOf(t *testing.T) {
	for _, c := range []struct {
		err     error
		outcome Outcome
		kind    string
	}{
		{nil, OK, ""},
		{&ConflictError{Current: "3"}, Fail, KindConflict},
		{fmt.Errorf("write: %w", &ConflictError{}), Fail, KindConflict},
		{&NotFoundError{Field: "tab_id", ID: "x"}, Fail, KindNotFound},
		{Invalid("text", "required"), Fail, KindInvalid},
		{&SchemaError{Violations: []Violation{{Path: "/slides", Keyword: "maxItems"}}}, Fail, KindSchema},
		{&RefusedError{Tool: "update_task", Reply: "task_not_found"}, Fail, KindRefused},
		{Indeterminate(KindReplyLost, errors.New("the reply was lost")), Info, KindReplyLost},
		{fmt.Errorf("call: %w", context.DeadlineExceeded), Info, KindTimeout},
		{errors.New("connection reset by peer"), Info, KindFailure},
		{&IndeterminateError{}, Info, KindFailure},
	} {
		if got := OutcomeOf(c.err); got != c.outcome {
			t.Errorf("OutcomeOf(%v) = %s, want %s", c.err, got, c.outcome)
		}
		if got := KindOf(c.err); got != c.kind {
			t.Errorf("KindOf(%v) = %q, want %q", c.err, got, c.kind)
		}
	}
}

// A version keeps its JSON text: a counter of any size travels as the number
// it is, and anything JSON cannot spell as an integer travels as a string
// ("007" marshalled as a number would be invalid JSON).
func TestVersionKeepsItsText(t *testing.T) {
	for _, c := range []struct {
		v    Version
		json string
	}{
		{"0", `0`},
		{"7", `7`},
		{"1733000000000000123", `1733000000000000123`},
		{"007", `"007"`},
		{"00", `"00"`},
		{"sha256:ab", `"sha256:ab"`},
		{"", `""`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.json {
			t.Errorf("Marshal(%q) = %s, %v; want %s", c.v, b, err, c.json)
			continue
		}
		if !json.Valid(b) {
			t.Errorf("Marshal(%q) = %s: invalid JSON", c.v, b)
		}
		var back Version
		if err := json.Unmarshal(b, &back); err != nil || back != c.v {
			t.Errorf("Unmarshal(%s) = %q, %v; want %q", b, back, err, c.v)
		}
	}
}
