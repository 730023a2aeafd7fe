package create

import (
	"slices"
	"strings"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// perSeed writes one count per seed: "67 / 70 / 64".
func perSeed(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = report.Int(int64(n))
	}
	return strings.Join(parts, " / ")
}

// Tables renders the create rows as the two published tables: table a
// (key policy, key checked first) and table b (server order by client key
// policy, tabs created with calls sent in brackets), published values beside
// ours when exp is set. A table without rows is left out.
func Tables(rows []Row, exp *results.Experiment) []report.MainTable {
	show := exp != nil
	a := report.Table{
		Title:  "Create table A: a lost reply, a re-list, a resend (key checked first)",
		Header: append([]string{"Key"}, report.Headers(show, "Calls sent", "Tabs created", "Duplicates")...),
	}
	b := report.Table{
		Title:  "Create table B: server order by client key policy, stale version on a resend",
		Keys:   2,
		Header: append([]string{"Server checks", "Client key policy"}, report.Headers(show, "Tabs created (calls sent)")...),
	}
	errs := slices.ContainsFunc(rows, func(r Row) bool {
		return slices.ContainsFunc(r.Errors, func(n int) bool { return n > 0 })
	})
	if errs {
		a.Header = append(a.Header, report.Headers(show, "Errors")...)
		b.Header = append(b.Header, report.Headers(show, "Errors")...)
	}
	anyOf := func(get func(Row) []int) bool {
		return slices.ContainsFunc(rows, func(r Row) bool { return slices.ContainsFunc(get(r), func(n int) bool { return n > 0 }) })
	}
	info := anyOf(func(r Row) []int { return r.Info })
	faults := anyOf(func(r Row) []int { return r.Faults })
	if info {
		a.Header = append(a.Header, report.Headers(show, "Info")...)
		b.Header = append(b.Header, report.Headers(show, "Info")...)
	}
	if faults {
		a.Header = append(a.Header, report.Headers(show, "Faults")...)
		b.Header = append(b.Header, report.Headers(show, "Faults")...)
	}
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"table": r.Table, "order": r.Order, "key_policy": r.KeyPolicy})
		var cells []string
		if r.Table == TableA {
			cells = append([]string{r.KeyPolicy}, report.WithPublished(show,
				[2]string{perSeed(r.CallsSent), pub.Cell(nil, "calls_sent")},
				[2]string{perSeed(r.TabsCreated), pub.Cell(nil, "tabs_created")},
				[2]string{perSeed(r.Duplicates), pub.Cell(nil, "duplicates")},
			)...)
		} else {
			cells = append([]string{r.Order, r.KeyPolicy}, report.WithPublished(show,
				[2]string{tabsWithCalls(r.TabsCreated, r.CallsSent), seedsWithCalls(pub)},
			)...)
		}
		if errs {
			cells = append(cells, report.WithPublished(show, [2]string{perSeed(r.Errors), report.NotPublished})...)
		}
		if info {
			cells = append(cells, report.WithPublished(show, [2]string{perSeed(r.Info), report.NotPublished})...)
		}
		if faults {
			cells = append(cells, report.WithPublished(show, [2]string{perSeed(r.Faults), report.NotPublished})...)
		}
		if r.Table == TableA {
			a.Rows = append(a.Rows, cells)
		} else {
			b.Rows = append(b.Rows, cells)
		}
	}
	var out []report.MainTable
	for _, t := range []report.MainTable{{Table: a, Published: TableA}, {Table: b, Published: TableB}} {
		if len(t.Table.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// tabsWithCalls writes "67 (84) / 70 (90) / 64 (78)".
func tabsWithCalls(tabs, calls []int) string {
	parts := make([]string, len(tabs))
	for i := range tabs {
		parts[i] = report.Int(int64(tabs[i])) + " (" + report.Int(int64(calls[i])) + ")"
	}
	return strings.Join(parts, " / ")
}

// seedsWithCalls is tabsWithCalls for a published row.
func seedsWithCalls(p report.Beside) string {
	if !p.Found() {
		return report.NotPublished
	}
	tabs, calls := p.Figure("tabs_created"), p.Figure("calls_sent")
	ts, cs := tabs.Seeds(), calls.Seeds()
	if len(ts) == 0 || len(ts) != len(cs) {
		return report.NotPublished
	}
	ti, ci := make([]int, len(ts)), make([]int, len(cs))
	for i := range ts {
		ti[i], ci[i] = int(ts[i]), int(cs[i])
	}
	return tabsWithCalls(ti, ci)
}
