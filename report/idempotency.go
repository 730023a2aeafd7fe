package report

import (
	"slices"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// perSeed writes one count per seed: "67 / 70 / 64".
func perSeed(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = Int(int64(n))
	}
	return strings.Join(parts, " / ")
}

// CreateTables renders the create rows as the two published tables: table a
// (key policy, key checked first) and table b (server order by client key
// policy, tabs created with calls sent in brackets), published values beside
// ours when exp is set. A table without rows is left out.
func CreateTables(rows []results.CreateRow, exp *results.Experiment) []MainTable {
	show := exp != nil
	a := Table{
		Title:  "Create table A: a lost reply, a re-list, a resend (key checked first)",
		Header: append([]string{"Key"}, Headers(show, "Calls sent", "Tabs created", "Duplicates")...),
	}
	b := Table{
		Title:  "Create table B: server order by client key policy, stale version on a resend",
		Keys:   2,
		Header: append([]string{"Server checks", "Client key policy"}, Headers(show, "Tabs created (calls sent)")...),
	}
	errs := slices.ContainsFunc(rows, func(r results.CreateRow) bool {
		return slices.ContainsFunc(r.Errors, func(n int) bool { return n > 0 })
	})
	if errs {
		a.Header = append(a.Header, Headers(show, "Errors")...)
		b.Header = append(b.Header, Headers(show, "Errors")...)
	}
	anyOf := func(get func(results.CreateRow) []int) bool {
		return slices.ContainsFunc(rows, func(r results.CreateRow) bool { return slices.ContainsFunc(get(r), func(n int) bool { return n > 0 }) })
	}
	info := anyOf(func(r results.CreateRow) []int { return r.Info })
	faults := anyOf(func(r results.CreateRow) []int { return r.Faults })
	if info {
		a.Header = append(a.Header, Headers(show, "Info")...)
		b.Header = append(b.Header, Headers(show, "Info")...)
	}
	if faults {
		a.Header = append(a.Header, Headers(show, "Faults")...)
		b.Header = append(b.Header, Headers(show, "Faults")...)
	}
	for _, r := range rows {
		pub := PublishedFor(exp, map[string]string{"table": r.Table, "order": r.Order, "key_policy": r.KeyPolicy})
		var cells []string
		if r.Table == results.CreateTableA {
			cells = append([]string{r.KeyPolicy}, WithPublished(show,
				[2]string{perSeed(r.CallsSent), pub.Cell(nil, "calls_sent")},
				[2]string{perSeed(r.TabsCreated), pub.Cell(nil, "tabs_created")},
				[2]string{perSeed(r.Duplicates), pub.Cell(nil, "duplicates")},
			)...)
		} else {
			cells = append([]string{r.Order, r.KeyPolicy}, WithPublished(show,
				[2]string{tabsWithCalls(r.TabsCreated, r.CallsSent), pub.seedsWithCalls()},
			)...)
		}
		if errs {
			cells = append(cells, WithPublished(show, [2]string{perSeed(r.Errors), NotPublished})...)
		}
		if info {
			cells = append(cells, WithPublished(show, [2]string{perSeed(r.Info), NotPublished})...)
		}
		if faults {
			cells = append(cells, WithPublished(show, [2]string{perSeed(r.Faults), NotPublished})...)
		}
		if r.Table == results.CreateTableA {
			a.Rows = append(a.Rows, cells)
		} else {
			b.Rows = append(b.Rows, cells)
		}
	}
	var out []MainTable
	for _, t := range []MainTable{{a, results.CreateTableA}, {b, results.CreateTableB}} {
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
		parts[i] = Int(int64(tabs[i])) + " (" + Int(int64(calls[i])) + ")"
	}
	return strings.Join(parts, " / ")
}

// seedsWithCalls is tabsWithCalls for a published row.
func (p Beside) seedsWithCalls() string {
	if !p.ok {
		return NotPublished
	}
	tabs, calls := p.figure("tabs_created"), p.figure("calls_sent")
	ts, cs := tabs.Seeds(), calls.Seeds()
	if len(ts) == 0 || len(ts) != len(cs) {
		return NotPublished
	}
	ti, ci := make([]int, len(ts)), make([]int, len(cs))
	for i := range ts {
		ti[i], ci[i] = int(ts[i]), int(cs[i])
	}
	return tabsWithCalls(ti, ci)
}

// SourcesTable renders the sources rows, published values beside ours when exp
// is set.
func SourcesTable(rows []results.SourcesRow, exp *results.Experiment) Table {
	show := exp != nil
	t := Table{
		Title:  "Which key to put on add_note_source",
		Header: append([]string{"Key"}, Headers(show, "Sources saved", "Duplicates", "Per session", "Browser check flags")...),
	}
	errs := slices.ContainsFunc(rows, func(r results.SourcesRow) bool { return r.Errors > 0 })
	if errs {
		t.Header = append(t.Header, Headers(show, "Errors")...)
	}
	info := slices.ContainsFunc(rows, func(r results.SourcesRow) bool { return r.Info > 0 })
	faults := slices.ContainsFunc(rows, func(r results.SourcesRow) bool { return r.Faults > 0 })
	if info {
		t.Header = append(t.Header, Headers(show, "Info")...)
	}
	if faults {
		t.Header = append(t.Header, Headers(show, "Faults")...)
	}
	for _, r := range rows {
		pub := PublishedFor(exp, map[string]string{"key_policy": r.KeyPolicy})
		flagged := NotPublished
		if r.BrowserFlagged != nil {
			flagged = Of(int64(*r.BrowserFlagged), int64(r.Duplicates))
		}
		cells := append([]string{r.KeyPolicy}, WithPublished(show,
			[2]string{Int(int64(r.Saved)), pub.Cell(nil, "saved")},
			[2]string{Int(int64(r.Duplicates)), pub.Cell(nil, "duplicates")},
			[2]string{Fixed(r.PerSession, 2), pub.Cell(nil, "per_session")},
			[2]string{flagged, pub.Cell(nil, "browser_flagged")},
		)...)
		if errs {
			cells = append(cells, WithPublished(show, [2]string{Int(int64(r.Errors)), NotPublished})...)
		}
		if info {
			cells = append(cells, WithPublished(show, [2]string{Int(int64(r.Info)), NotPublished})...)
		}
		if faults {
			cells = append(cells, WithPublished(show, [2]string{Int(int64(r.Faults)), NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}
