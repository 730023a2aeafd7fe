package tabs

import (
	"slices"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders tabs rows, published values beside ours when exp is set.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	errs := slices.ContainsFunc(rows, func(r Row) bool { return r.ErrorsClaude+r.ErrorsHuman > 0 })
	t := report.Table{
		Title:  "False conflicts by version scope",
		Header: append([]string{"Version scope"}, report.Headers(show, "Claude conflicts", "Person conflicts", "Lost")...),
	}
	if errs {
		t.Header = append(t.Header, report.Headers(show, report.ErrorsHeader)...)
	}
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"guard": r.Guard})
		cells := []string{r.Guard}
		cells = append(cells, report.WithPublished(show,
			[2]string{report.Of(int64(r.ConflictsClaude), int64(r.WritesClaude)), pub.Cell(nil, "conflicts_claude")},
			[2]string{report.Of(int64(r.ConflictsHuman), int64(r.WritesHuman)), pub.Cell(nil, "conflicts_human")},
			[2]string{report.Int(int64(r.Lost)), pub.Cell(nil, "lost")},
		)...)
		if errs {
			cells = append(cells, report.WithPublished(show, [2]string{report.IntPair(r.ErrorsClaude, r.ErrorsHuman), report.NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}
