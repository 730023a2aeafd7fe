package report

import (
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// NotPublished fills a published cell for which the write-ups give nothing.
const NotPublished = "—"

// PublishedHeader returns the header of the column that shows the published
// value of the figure whose own column is headed h: "Lost" → "Lost (published)".
func PublishedHeader(h string) string { return h + " (published)" }

// Published formats a published figure for a cell under a PublishedHeader (or a
// "Published" column). With num nil the numbers appear exactly as published
// ("0.070"); otherwise num formats each of them, e.g. Pct for the fractions of
// refs. A range is "low–high", a per-seed list "a / b / c", a text itself, and
// the zero Figure NotPublished.
func Published(f results.Figure, num func(float64) string) string {
	if f.IsZero() {
		return NotPublished
	}
	if num == nil {
		return f.String()
	}
	switch f.Kind() {
	case results.FigurePoint:
		return num(f.Value())
	case results.FigureRange:
		lo, hi := f.Range()
		return num(lo) + "–" + num(hi)
	case results.FigureSeeds:
		var parts []string
		for _, v := range f.Seeds() {
			parts = append(parts, num(v))
		}
		return strings.Join(parts, " / ")
	}
	return f.String()
}

// SourceNotes returns the notes that say where the published figures of t come
// from, each starting with "published": the setup and the write-up, the
// parameters, then every fact the text gives beside the table.
func SourceNotes(t *results.PubTable) []string {
	notes := []string{fmt.Sprintf("published figures: %s (%s, %s)", t.Setup, t.Source.File, t.Source.Lang)}
	if len(t.Params) > 0 {
		var ps []string
		for _, p := range t.Params {
			ps = append(ps, p.Name+" "+p.Value)
		}
		notes = append(notes, "published parameters: "+strings.Join(ps, ", "))
	}
	for _, f := range t.Facts {
		notes = append(notes, "published: "+f)
	}
	return notes
}

// SummaryNote returns the verdict summary line of verdicts, e.g.
// "verdict: 7 of 9 published figures consistent with ours (central 99 % range)".
func SummaryNote(verdicts []results.Verdict, mass float64) string {
	consistent, total := results.Summary(verdicts)
	return fmt.Sprintf("verdict: %d of %s consistent with ours (central %s range)",
		consistent, Count(total, "published figure"), massLabel(mass))
}

// VerdictTable returns one row per verdict: the row label, the figure (with its
// seed for a per-seed figure), the published value as written, our central
// range of the given mass (rounded to what its width shows, results.RoundRange),
// the outcome ("ratio 0.96×" for a timing), our mean, and the published
// value's percentile among ours — what a reader compares first comes first, so
// that a narrow terminal keeps it in the first part. Our text stands in for the
// mean of a text figure; "n/a" marks what a NoData verdict lacks. Its one note
// is the SummaryNote.
func VerdictTable(title string, mass float64, verdicts []results.Verdict) Table {
	t := Table{
		Title:  title,
		Keys:   2,
		Header: []string{"Row", "Figure", "Published", "Ours (" + massLabel(mass) + " range)", "Verdict", "Ours (mean)", "Percentile"},
		Notes:  []string{SummaryNote(verdicts, mass)},
	}
	for _, v := range verdicts {
		mean, span, pct := "n/a", "n/a", "n/a"
		switch {
		case v.OursText != "":
			mean = v.OursText
		case v.Outcome != results.NoData:
			mean, span, pct = Num(v.OursMean), results.RoundRange(v.OursLow, v.OursHigh), Fixed(v.Percentile, 1)
		}
		t.Rows = append(t.Rows, []string{v.Row, figureLabel(v.Figure, v.Seed), Published(v.Published, nil), span, outcomeText(v.Outcome, v.Ratio), mean, pct})
	}
	return t
}

// massLabel writes a central mass as a percentage: 0.99 → "99 %".
func massLabel(mass float64) string {
	return Num(100*mass) + " %"
}
