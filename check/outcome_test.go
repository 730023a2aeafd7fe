package check

import (
	"fmt"
	"testing"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// Conclude puts a violation before histories that leave the verdicts
// unknown, and those before checks that could not judge everything.
func TestConclude(t *testing.T) {
	hs := []*history.History{{File: "a.jsonl"}, {File: "b.jsonl"}}
	violated := []results.CheckResult{{Check: results.CheckLostUpdates, Verdict: results.CheckViolated}, {Check: results.CheckVersions, Verdict: results.CheckUnknown}}
	careless := []results.AgentResult{{Agent: "x 1.0", Verdict: AgentCareless}, {Agent: "y 1.0", Verdict: AgentCareful}, {Agent: "x 1.0", Verdict: AgentCareless}}
	for _, tc := range []struct {
		name string
		rep  results.CheckReport
		hs   []*history.History
		want string
		kind string // the error's type
	}{
		{"ok", results.CheckReport{Checks: []results.CheckResult{{Check: results.CheckVersions, Verdict: results.CheckNotApplicable}}}, hs, "", "<nil>"},
		{"violated", results.CheckReport{Checks: violated, Agents: careless, Cut: []string{"b.jsonl after line 3"}}, hs,
			"violated: lost-updates; careless: x 1.0 (in what was read of histories cut short, with no end line: b.jsonl after line 3)", "*check.ViolationError"},
		{"empty", results.CheckReport{Empty: true, Cut: []string{"b.jsonl after line 1"}}, hs,
			"nothing to judge: a.jsonl, b.jsonl hold no run (cut short (no end line): b.jsonl after line 1)", "*check.IncompleteError"},
		{"empty file", results.CheckReport{Empty: true}, hs[:1], "nothing to judge: a.jsonl holds no run", "*check.IncompleteError"},
		{"cut", results.CheckReport{Checks: violated[1:], Cut: []string{"b.jsonl after line 3"}}, hs,
			"unknown: cut short (no end line): b.jsonl after line 3: what it holds was judged, what it lacks cannot be", "*check.IncompleteError"},
		{"unknown", results.CheckReport{Checks: violated[1:]}, hs, "unknown: versions could not judge everything", "*check.UnjudgedError"},
	} {
		err := Conclude(&tc.rep, tc.hs)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want || fmt.Sprintf("%T", err) != tc.kind {
			t.Errorf("%s: Conclude = %T %q, want %s %q", tc.name, err, got, tc.kind, tc.want)
		}
	}
}
