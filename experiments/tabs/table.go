package tabs

import (
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders tabs rows, published values beside ours when exp is set.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	extras := report.ExtrasIn(extraColumns, rows)
	t := report.Table{
		Title:  "False conflicts by version scope",
		Header: append([]string{"Version scope"}, report.Headers(show, "Claude conflicts", "Person conflicts", "Lost")...),
	}
	t.Header = append(t.Header, report.ExtraHeaders(show, extras)...)
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"guard": r.Guard})
		cells := []string{r.Guard}
		cells = append(cells, report.WithPublished(show,
			[2]string{report.Of(int64(r.ConflictsClaude), int64(r.WritesClaude)), pub.Cell(nil, "conflicts_claude")},
			[2]string{report.Of(int64(r.ConflictsHuman), int64(r.WritesHuman)), pub.Cell(nil, "conflicts_human")},
			[2]string{report.Int(int64(r.Lost)), pub.Cell(nil, "lost")},
		)...)
		t.Rows = append(t.Rows, append(cells, report.ExtraCells(show, extras, r)...))
	}
	return t
}

// extraColumns are the tabs table's columns of ours only: the errors.
var extraColumns = []report.Extra[Row]{
	{Header: report.ErrorsHeader, Has: func(r Row) bool { return r.ErrorsClaude+r.ErrorsHuman > 0 },
		Cell: func(r Row) string { return report.IntPair(r.ErrorsClaude, r.ErrorsHuman) }},
}
