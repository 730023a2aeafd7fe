package outline

import (
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders outline rows, published values beside ours when exp is
// set.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	t := report.Table{
		Title:  "One create with an outline, or slide by slide",
		Header: append([]string{"Approach"}, report.Headers(show, "Writes", "Request bytes", "Conflicts per deck")...),
	}
	t.Header = append(t.Header, "Exact expectation")
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"approach": r.Approach})
		cells := append([]string{r.Approach}, report.WithPublished(show,
			[2]string{report.Int(int64(r.Writes)), pub.Cell(nil, "writes")},
			[2]string{report.Int(int64(r.RequestBytes)), pub.Cell(nil, "request_bytes")},
			[2]string{report.Fixed(r.ConflictsPerDeck, 3), pub.Cell(nil, "conflicts_per_deck")},
		)...)
		t.Rows = append(t.Rows, append(cells, report.Fixed(r.ExpectedConflicts, 3)))
	}
	return t
}
