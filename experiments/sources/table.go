package sources

import (
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
	extras := report.ExtrasIn(extraColumns, rows)
	t.Header = append(t.Header, report.ExtraHeaders(show, extras)...)
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
		t.Rows = append(t.Rows, append(cells, report.ExtraCells(show, extras, r)...))
	}
	return t
}

// extraColumns are the sources table's columns of ours only: the errors,
// and what faults (--nemesis) bring.
var extraColumns = []report.Extra[Row]{
	report.CountColumn("Errors", func(r Row) int { return r.Errors }),
	report.CountColumn("Info", func(r Row) int { return r.Info }),
	report.CountColumn("Faults", func(r Row) int { return r.Faults }),
}
