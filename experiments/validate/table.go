package validate

import (
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders the validate rows: both verdicts, and the published
// verdict of the minimal validator beside ours when exp is set.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	t := report.Table{
		Title:  "Payloads a model might send: a minimal validator against the full JSON Schema",
		Keys:   2,
		Header: append(append([]string{"Tool", "Payload (ids omitted)"}, report.Headers(show, "Minimal validator")...), "Full validator"),
	}
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"tool": r.Tool, "payload": r.Payload})
		cells := append([]string{r.Tool, r.Payload}, report.WithPublished(show, [2]string{r.Minimal, pub.Cell(nil, "minimal")})...)
		t.Rows = append(t.Rows, append(cells, r.Full))
	}
	return t
}
