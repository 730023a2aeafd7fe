package race

import (
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Table renders race rows; with exp set, each figure has its published value
// beside it.
func Table(rows []Row, exp *results.Experiment) report.Table {
	show := exp != nil
	extras := report.ExtrasIn(extraColumns, rows)
	t := report.Table{
		Title: "Lost updates by write guard and conflict policy",
		Keys:  2,
		Header: append([]string{"Guard", "On conflict"}, report.Headers(show, "Lost", "Lost claude / human",
			"Conflicts claude / human", "Max tries", "Mean tries claude / human", "Wall s per run")...),
	}
	t.Header = append(t.Header, report.ExtraHeaders(show, extras)...)
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
		t.Rows = append(t.Rows, append(cells, report.ExtraCells(show, extras, r)...))
	}
	return t
}

// extraColumns are the race table's columns of ours only: the errors, and
// what faults (--nemesis) bring.
var extraColumns = []report.Extra[Row]{
	{Header: report.ErrorsHeader, Has: func(r Row) bool { return r.ErrorsClaude+r.ErrorsHuman > 0 },
		Cell: func(r Row) string { return report.IntPair(r.ErrorsClaude, r.ErrorsHuman) }},
	report.CountColumn("Faults", func(r Row) int { return r.Faults }),
	{Header: "Info claude / human", Has: func(r Row) bool { return r.InfoClaude+r.InfoHuman > 0 },
		Cell: func(r Row) string { return report.IntPair(r.InfoClaude, r.InfoHuman) }},
	{Header: "Duplicates claude / human", Has: func(r Row) bool { return r.DuplicatesClaude+r.DuplicatesHuman > 0 },
		Cell: func(r Row) string { return report.IntPair(r.DuplicatesClaude, r.DuplicatesHuman) }},
	{Header: "Unreadable claude / human", Has: func(r Row) bool { return r.UnreadableClaude+r.UnreadableHuman > 0 },
		Cell: func(r Row) string { return report.IntPair(r.UnreadableClaude, r.UnreadableHuman) }},
}
