package audit

import (
	"bytes"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// CrashOutcome is what the kill -9 test found, as the audit's crash column
// counts it: rec is the test's record (notesbench crash's JSON), checks the
// checks of the history w it recorded, unknown the checks that could not
// judge everything, and command the command line that reruns it.
func CrashOutcome(command []string, rec results.CrashRecord, checks *results.CheckReport, unknown []string, w *history.Writer) (FaultOutcome, error) {
	var hist bytes.Buffer
	if _, err := w.WriteTo(&hist); err != nil {
		return FaultOutcome{}, err
	}
	fo := FaultOutcome{Runs: len(rec.Rows), Warnings: prefixed("could not judge everything: ", unknown),
		History: hist.Bytes(), Checks: checks,
		Part:   results.AuditPart{Name: "crash", Command: command, Result: rec},
		Tables: report.CrashTables(rec.Config, rec.Rows, checks)}
	lost, twice, empty := 0, 0, 0
	for _, r := range rec.Rows {
		if (r.Integrity != "" && r.Integrity != "ok") || r.Unreadable != "" || r.UnreadableReads > 0 {
			fo.Unreadable++
		}
		lost += r.LostAcknowledged
		twice += r.Duplicates
		empty += r.UnreadableReads
	}
	fo.LostAcknowledged, fo.AppliedTwice, fo.EmptyReads = &lost, &twice, &empty
	return fo, nil
}
