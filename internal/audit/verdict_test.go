package audit

import (
	"errors"
	"testing"

	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/results"
)

// An audit's verdict: nil when it passed and judged every part; failed,
// with each count worse than the baseline's, when it found something
// wrong; unfinished when it found nothing wrong but did not judge a part.
func TestVerdict(t *testing.T) {
	subject := results.AuditSubject{Target: "stdio:srv"}
	if err := Verdict(results.Audit{Subject: subject}); err != nil {
		t.Errorf("passed: %v", err)
	}
	for _, tc := range []struct {
		a          results.Audit
		want       string
		unfinished bool
	}{
		{results.Audit{Subject: subject, Failed: []string{results.AnomalyLostUpdate}}, "audit of stdio:srv failed: found lost-update", false},
		{results.Audit{Subject: subject, Regressions: []string{"lost update, race note/reapply: baseline 0, now 3"}},
			"audit of stdio:srv failed: 1 count worse than the baseline's:\n  lost update, race note/reapply: baseline 0, now 3", false},
		{results.Audit{Subject: subject, Unfinished: []string{"race: out of its time"}},
			"audit of stdio:srv incomplete: no anomaly found that --allow does not name, but 1 part not judged: race: out of its time", true},
	} {
		err := Verdict(tc.a)
		var v VerdictError
		if !errors.As(err, &v) || err.Error() != tc.want || v.Unfinished() != tc.unfinished {
			t.Errorf("%v, want %q (unfinished %v)", err, tc.want, tc.unfinished)
		}
	}
}

// Options the audit cannot run with are refused naming the field, as the
// command's flag is named: a negative parallel, a baseline of another
// budget.
func TestOptionsValidate(t *testing.T) {
	quick := &results.Audit{Budget: "quick"}
	for _, tc := range []struct {
		o           Options
		field, want string
	}{
		{Options{Parallel: -1}, "parallel", "must be 0 or more"},
		{Options{Budget: Budget{Name: "smoke"}, Baseline: quick, BaselineFile: "a.json"}, "baseline", "a.json is an audit at budget quick, this one runs smoke: counts of different budgets cannot be compared"},
	} {
		var fe *field.Error
		if err := tc.o.Validate(); !errors.As(err, &fe) || fe.Field != tc.field || fe.Err.Error() != tc.want {
			t.Errorf("%v, want %s: %s", err, tc.field, tc.want)
		}
	}
	if err := (Options{Budget: Budget{Name: "quick"}, Baseline: quick, Parallel: 2}).Validate(); err != nil {
		t.Error(err)
	}
}
