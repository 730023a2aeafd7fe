package audit

import (
	"strings"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Verdict is a's verdict as the error an audit ends with: nil when it
// passed and judged every part, a VerdictError otherwise.
func Verdict(a results.Audit) error {
	if a.Passed() && a.Finished() {
		return nil
	}
	return VerdictError{a}
}

// VerdictError is an audit that did not pass: it found an anomaly --allow
// does not name, a part ended in an error, or a count is worse than the
// baseline's; or (Unfinished) it found nothing wrong but did not judge every
// part (interrupted, or a part out of its time).
type VerdictError struct{ Audit results.Audit }

func (e VerdictError) Error() string {
	msg := "audit of " + e.Audit.Subject.Target + " " + report.AuditVerdict(e.Audit)
	if len(e.Audit.Regressions) > 0 {
		msg += ":\n  " + strings.Join(e.Audit.Regressions, "\n  ")
	}
	return msg
}

// Unfinished reports whether the audit found nothing wrong but did not
// judge every part.
func (e VerdictError) Unfinished() bool { return e.Audit.Passed() }
