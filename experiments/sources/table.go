package sources

import (
	"slices"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders the sources rows, published values beside ours when exp
// is set.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	t := report.Table{
		Title:  "Which key to put on add_note_source",
		Header: append([]string{"Key"}, report.Headers(show, "Sources saved", "Duplicates", "Per session", "Browser check flags")...),
	}
	errs := slices.ContainsFunc(rows, func(r Row) bool { return r.Errors > 0 })
	if errs {
		t.Header = append(t.Header, report.Headers(show, "Errors")...)
	}
	info := slices.ContainsFunc(rows, func(r Row) bool { return r.Info > 0 })
	faults := slices.ContainsFunc(rows, func(r Row) bool { return r.Faults > 0 })
	if info {
		t.Header = append(t.Header, report.Headers(show, "Info")...)
	}
	if faults {
		t.Header = append(t.Header, report.Headers(show, "Faults")...)
	}
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"key_policy": r.KeyPolicy})
		flagged := report.NotPublished
		if r.BrowserFlagged != nil {
			flagged = report.Of(int64(*r.BrowserFlagged), int64(r.Duplicates))
		}
		cells := append([]string{r.KeyPolicy}, report.WithPublished(show,
			[2]string{report.Int(int64(r.Saved)), pub.Cell(nil, "saved")},
			[2]string{report.Int(int64(r.Duplicates)), pub.Cell(nil, "duplicates")},
			[2]string{report.Fixed(r.PerSession, 2), pub.Cell(nil, "per_session")},
			[2]string{flagged, pub.Cell(nil, "browser_flagged")},
		)...)
		if errs {
			cells = append(cells, report.WithPublished(show, [2]string{report.Int(int64(r.Errors)), report.NotPublished})...)
		}
		if info {
			cells = append(cells, report.WithPublished(show, [2]string{report.Int(int64(r.Info)), report.NotPublished})...)
		}
		if faults {
			cells = append(cells, report.WithPublished(show, [2]string{report.Int(int64(r.Faults)), report.NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}
