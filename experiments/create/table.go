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
	extras := report.ExtrasIn(extraColumns, rows)
	a.Header = append(a.Header, report.ExtraHeaders(show, extras)...)
	b.Header = append(b.Header, report.ExtraHeaders(show, extras)...)
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
		cells = append(cells, report.ExtraCells(show, extras, r)...)
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

// extraColumns are the create tables' columns of ours only, per seed: the
// errors, and what faults (--nemesis) bring.
var extraColumns = []report.Extra[Row]{perSeedColumn("Errors", func(r Row) []int { return r.Errors }),
	perSeedColumn("Info", func(r Row) []int { return r.Info }), perSeedColumn("Faults", func(r Row) []int { return r.Faults })}

// perSeedColumn is the column of a count per seed, shown when a seed has
// one.
func perSeedColumn(header string, get func(Row) []int) report.Extra[Row] {
	return report.Extra[Row]{Header: header, Cell: func(r Row) string { return perSeed(get(r)) },
		Has: func(r Row) bool { return slices.ContainsFunc(get(r), func(n int) bool { return n > 0 }) }}
}
