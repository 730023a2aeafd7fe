package fast

import (
	"slices"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders fast rows, published values beside ours when exp is set.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	errs := slices.ContainsFunc(rows, func(r Row) bool { return r.Errors > 0 })
	t := report.Table{
		Title:  "Lost updates by version format, no think time",
		Header: append([]string{"Version format"}, report.Headers(show, "Lost lines", "Runs with a loss")...),
	}
	if errs {
		t.Header = append(t.Header, report.Headers(show, "Errors")...)
	}
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"version_format": r.VersionFormat})
		cells := append([]string{r.VersionFormat}, report.WithPublished(show,
			[2]string{report.Of(int64(r.Lost), int64(r.Intended)), pub.Cell(nil, "lost")},
			[2]string{report.Int(int64(r.RunsWithLoss)) + " of " + report.Int(int64(r.Runs)), pub.Cell(nil, "runs_with_loss")},
		)...)
		if errs {
			cells = append(cells, report.WithPublished(show, [2]string{report.Int(int64(r.Errors)), report.NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}
