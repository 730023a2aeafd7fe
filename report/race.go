package report

import (
	"slices"

	"github.com/notesbench/notesbench/results"
)

func int2(a, b int) string { return Int(int64(a)) + " / " + Int(int64(b)) }

// RaceTable renders race rows; with exp set, each figure has its published value
// beside it.
func RaceTable(rows []results.RaceRow, exp *results.Experiment) Table {
	show := exp != nil
	errs := slices.ContainsFunc(rows, func(r results.RaceRow) bool { return r.ErrorsClaude+r.ErrorsHuman > 0 })
	t := Table{
		Title: "Lost updates by write guard and conflict policy",
		Keys:  2,
		Header: append([]string{"Guard", "On conflict"}, Headers(show, "Lost", "Lost claude / human",
			"Conflicts claude / human", "Max tries", "Mean tries claude / human", "Wall s per run")...),
	}
	if errs {
		t.Header = append(t.Header, Headers(show, errorsHeader)...)
	}
	faults := faultColumns(rows)
	for _, c := range faults {
		t.Header = append(t.Header, Headers(show, c.header)...)
	}
	for _, r := range rows {
		pub := PublishedFor(exp, map[string]string{"guard": r.Guard, "policy": r.Policy})
		policy := r.Policy
		if policy == "" {
			policy = NotPublished
		}
		cells := append([]string{r.Guard, policy}, WithPublished(show,
			[2]string{Of(int64(r.Lost), int64(r.Intended)), pub.Cell(nil, "lost")},
			[2]string{int2(r.LostClaude, r.LostHuman), pub.Cell(nil, "lost_claude", "lost_human")},
			[2]string{int2(r.ConflictsClaude, r.ConflictsHuman), pub.Cell(nil, "conflicts_claude", "conflicts_human")},
			[2]string{Int(int64(r.MaxTries)), pub.Cell(nil, "max_tries")},
			[2]string{Fixed(r.MeanTriesClaude, 2) + " / " + Fixed(r.MeanTriesHuman, 2), pub.Cell(nil, "mean_tries_claude", "mean_tries_human")},
			[2]string{Fixed(r.WallS, 2), pub.Cell(nil, "wall_s")},
		)...)
		if errs {
			cells = append(cells, WithPublished(show, [2]string{int2(r.ErrorsClaude, r.ErrorsHuman), NotPublished})...)
		}
		for _, c := range faults {
			cells = append(cells, WithPublished(show, [2]string{c.cell(r), NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// raceColumn is a column of the race table shown only when a row has a
// figure in it: what faults (--nemesis) bring.
type raceColumn struct {
	header string
	any    func(results.RaceRow) bool
	cell   func(results.RaceRow) string
}

// raceFaultColumns are the race table's columns of faults.
var raceFaultColumns = []raceColumn{
	{"Faults", func(r results.RaceRow) bool { return r.Faults > 0 }, func(r results.RaceRow) string { return Int(int64(r.Faults)) }},
	{"Info claude / human", func(r results.RaceRow) bool { return r.InfoClaude+r.InfoHuman > 0 },
		func(r results.RaceRow) string { return int2(r.InfoClaude, r.InfoHuman) }},
	{"Duplicates claude / human", func(r results.RaceRow) bool { return r.DuplicatesClaude+r.DuplicatesHuman > 0 },
		func(r results.RaceRow) string { return int2(r.DuplicatesClaude, r.DuplicatesHuman) }},
	{"Unreadable claude / human", func(r results.RaceRow) bool { return r.UnreadableClaude+r.UnreadableHuman > 0 },
		func(r results.RaceRow) string { return int2(r.UnreadableClaude, r.UnreadableHuman) }},
}

// faultColumns returns the columns of faults some row has a figure in.
func faultColumns(rows []results.RaceRow) []raceColumn {
	var out []raceColumn
	for _, c := range raceFaultColumns {
		if slices.ContainsFunc(rows, c.any) {
			out = append(out, c)
		}
	}
	return out
}

// errorsHeader heads the column of the calls that ended in a server error,
// shown when any row has one.
const errorsHeader = "Errors claude / human"

// TabsTable renders tabs rows, published values beside ours when exp is set.
func TabsTable(rows []results.TabsRow, exp *results.Experiment) Table {
	show := exp != nil
	errs := slices.ContainsFunc(rows, func(r results.TabsRow) bool { return r.ErrorsClaude+r.ErrorsHuman > 0 })
	t := Table{
		Title:  "False conflicts by version scope",
		Header: append([]string{"Version scope"}, Headers(show, "Claude conflicts", "Person conflicts", "Lost")...),
	}
	if errs {
		t.Header = append(t.Header, Headers(show, errorsHeader)...)
	}
	for _, r := range rows {
		pub := PublishedFor(exp, map[string]string{"guard": r.Guard})
		cells := []string{r.Guard}
		cells = append(cells, WithPublished(show,
			[2]string{Of(int64(r.ConflictsClaude), int64(r.WritesClaude)), pub.Cell(nil, "conflicts_claude")},
			[2]string{Of(int64(r.ConflictsHuman), int64(r.WritesHuman)), pub.Cell(nil, "conflicts_human")},
			[2]string{Int(int64(r.Lost)), pub.Cell(nil, "lost")},
		)...)
		if errs {
			cells = append(cells, WithPublished(show, [2]string{int2(r.ErrorsClaude, r.ErrorsHuman), NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// FastTable renders fast rows, published values beside ours when exp is set.
func FastTable(rows []results.FastRow, exp *results.Experiment) Table {
	show := exp != nil
	errs := slices.ContainsFunc(rows, func(r results.FastRow) bool { return r.Errors > 0 })
	t := Table{
		Title:  "Lost updates by version format, no think time",
		Header: append([]string{"Version format"}, Headers(show, "Lost lines", "Runs with a loss")...),
	}
	if errs {
		t.Header = append(t.Header, Headers(show, "Errors")...)
	}
	for _, r := range rows {
		pub := PublishedFor(exp, map[string]string{"version_format": r.VersionFormat})
		cells := append([]string{r.VersionFormat}, WithPublished(show,
			[2]string{Of(int64(r.Lost), int64(r.Intended)), pub.Cell(nil, "lost")},
			[2]string{Int(int64(r.RunsWithLoss)) + " of " + Int(int64(r.Runs)), pub.Cell(nil, "runs_with_loss")},
		)...)
		if errs {
			cells = append(cells, WithPublished(show, [2]string{Int(int64(r.Errors)), NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}
