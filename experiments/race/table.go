package race

import (
	"slices"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders race rows; with exp set, each figure has its published value
// beside it.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	errs := slices.ContainsFunc(rows, func(r Row) bool { return r.ErrorsClaude+r.ErrorsHuman > 0 })
	t := report.Table{
		Title: "Lost updates by write guard and conflict policy",
		Keys:  2,
		Header: append([]string{"Guard", "On conflict"}, report.Headers(show, "Lost", "Lost claude / human",
			"Conflicts claude / human", "Max tries", "Mean tries claude / human", "Wall s per run")...),
	}
	if errs {
		t.Header = append(t.Header, report.Headers(show, report.ErrorsHeader)...)
	}
	faults := faultColumns(rows)
	for _, c := range faults {
		t.Header = append(t.Header, report.Headers(show, c.header)...)
	}
	for _, r := range rows {
		pub := report.PublishedFor(exp, map[string]string{"guard": r.Guard, "policy": r.Policy})
		policy := r.Policy
		if policy == "" {
			policy = report.NotPublished
		}
		cells := append([]string{r.Guard, policy}, report.WithPublished(show,
			[2]string{report.Of(int64(r.Lost), int64(r.Intended)), pub.Cell(nil, "lost")},
			[2]string{report.IntPair(r.LostClaude, r.LostHuman), pub.Cell(nil, "lost_claude", "lost_human")},
			[2]string{report.IntPair(r.ConflictsClaude, r.ConflictsHuman), pub.Cell(nil, "conflicts_claude", "conflicts_human")},
			[2]string{report.Int(int64(r.MaxTries)), pub.Cell(nil, "max_tries")},
			[2]string{report.Fixed(r.MeanTriesClaude, 2) + " / " + report.Fixed(r.MeanTriesHuman, 2), pub.Cell(nil, "mean_tries_claude", "mean_tries_human")},
			[2]string{report.Fixed(r.WallS, 2), pub.Cell(nil, "wall_s")},
		)...)
		if errs {
			cells = append(cells, report.WithPublished(show, [2]string{report.IntPair(r.ErrorsClaude, r.ErrorsHuman), report.NotPublished})...)
		}
		for _, c := range faults {
			cells = append(cells, report.WithPublished(show, [2]string{c.cell(r), report.NotPublished})...)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// raceColumn is a column of the race table shown only when a row has a
// figure in it: what faults (--nemesis) bring.
type raceColumn struct {
	header string
	any    func(Row) bool
	cell   func(Row) string
}

// raceFaultColumns are the race table's columns of faults.
var raceFaultColumns = []raceColumn{
	{"Faults", func(r Row) bool { return r.Faults > 0 }, func(r Row) string { return report.Int(int64(r.Faults)) }},
	{"Info claude / human", func(r Row) bool { return r.InfoClaude+r.InfoHuman > 0 },
		func(r Row) string { return report.IntPair(r.InfoClaude, r.InfoHuman) }},
	{"Duplicates claude / human", func(r Row) bool { return r.DuplicatesClaude+r.DuplicatesHuman > 0 },
		func(r Row) string { return report.IntPair(r.DuplicatesClaude, r.DuplicatesHuman) }},
	{"Unreadable claude / human", func(r Row) bool { return r.UnreadableClaude+r.UnreadableHuman > 0 },
		func(r Row) string { return report.IntPair(r.UnreadableClaude, r.UnreadableHuman) }},
}

// faultColumns returns the columns of faults some row has a figure in.
func faultColumns(rows []Row) []raceColumn {
	var out []raceColumn
	for _, c := range raceFaultColumns {
		if slices.ContainsFunc(rows, c.any) {
			out = append(out, c)
		}
	}
	return out
}
