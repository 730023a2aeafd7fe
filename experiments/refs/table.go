package refs

import (
	"strconv"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders refs rows, published values beside ours when exp is set.
// Fractions print as percentages.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	t := report.Table{
		Title:  "Where a kept tab reference resolves after the person's edits",
		Keys:   2,
		Header: append([]string{"K", "Reference"}, report.Headers(show, "Correct", "Wrong deck", "Not found", "Writes passing the version check")...),
	}
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"k": strconv.Itoa(r.K), "ref": r.Ref})
		t.Rows = append(t.Rows, append([]string{strconv.Itoa(r.K), r.Ref}, report.WithPublished(show,
			[2]string{report.Pct(r.Correct), pub.Cell(report.Pct, "correct")},
			[2]string{report.Pct(r.Wrong), pub.Cell(report.Pct, "wrong")},
			[2]string{report.Pct(r.NotFound), pub.Cell(report.Pct, "not_found")},
			[2]string{report.Pct(r.PassedVersionCheck) + " of " + report.Int(int64(r.Writes-r.Refused)), pub.Cell(report.Pct, "passed_version_check")},
		)...))
	}
	return t
}
