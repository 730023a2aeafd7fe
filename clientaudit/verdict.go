package clientaudit

import (
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Verdict is a's verdict as the error a client audit ends with: nil when
// it passed; otherwise one that says so ("audit of client CMD failed: …")
// and whose Unfinished says whether it found nothing wrong but was
// interrupted before it judged every run.
func Verdict(a results.ClientAudit) error {
	if a.Passed() {
		return nil
	}
	return verdictError{a}
}

// verdictError is a client audit that did not pass.
type verdictError struct{ a results.ClientAudit }

func (e verdictError) Error() string {
	return "audit of client " + e.a.Command + " " + report.ClientAuditVerdict(e.a)
}

// Unfinished reports whether the audit found no anomaly and no run it could
// not judge, but did not run every fault (interrupted, or nothing ran).
func (e verdictError) Unfinished() bool { return !e.a.Failed() }
