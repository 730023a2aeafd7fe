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
// "verdict: 7 of 9 published figures consistent with ours (each against the
// interval one new run of ours falls in, 99.0 % asked)", saying also how many
// were judged at less for want of samples (results.ShortOfCoverage).
func SummaryNote(verdicts []results.Verdict, coverage float64) string {
	consistent, total := results.Summary(verdicts)
	return fmt.Sprintf("verdict: %d of %s consistent with ours (%s)",
		consistent, Count(total, "published figure"), coverageClause(verdicts, coverage))
}

// coverageClause says what the verdicts judged against and at what coverage:
// "each against the interval one new run of ours falls in, 99.0 % asked", and
// "; 2 at less, down to 98.0 %" when some verdicts cover less than asked.
func coverageClause(verdicts []results.Verdict, coverage float64) string {
	s := "each against the interval one new run of ours falls in, " + results.CoverageLabel(coverage) + " asked"
	if short, least := results.ShortOfCoverage(verdicts, coverage); short > 0 {
		s += fmt.Sprintf("; %d at less, down to %s", short, results.CoverageLabel(least))
	}
	return s
}

// VerdictTable returns one row per verdict: the row label, the figure (with its
// seed for a per-seed figure), the published value as written, the interval in
// which one new run of ours falls (rounded to what its width shows,
// results.RoundRange), the outcome ("ratio 0.96×" for a timing), the
// interval's coverage and method, our mean, and the published value's
// percentile among ours — what a reader compares first comes first, so that a
// narrow terminal keeps it in the first part. Our text stands in for the mean
// of a text figure; "n/a" marks what a verdict lacks. coverage is the coverage
// the verdicts asked. Its notes are the SummaryNote and a line for each method
// the verdicts used, saying how it draws its interval.
func VerdictTable(title string, coverage float64, verdicts []results.Verdict) Table {
	t := Table{
		Title:  title,
		Keys:   2,
		Header: []string{"Row", "Figure", "Published", "Ours (prediction interval)", "Verdict", "Coverage", "Method", "Ours (mean)", "Percentile"},
		Notes:  append([]string{SummaryNote(verdicts, coverage)}, methodNotes(verdicts, coverage)...),
	}
	for _, v := range verdicts {
		mean, span, cov, method, pct := "n/a", "n/a", "n/a", "n/a", "n/a"
		if v.Method != "" {
			method = string(v.Method)
		}
		switch {
		case v.OursText != "":
			mean = v.OursText
		case v.Outcome != results.NoData:
			mean, span, cov, pct = Num(v.OursMean), results.RoundRange(v.OursLow, v.OursHigh), results.CoverageLabel(v.Coverage), Fixed(v.Percentile, 1)
		}
		t.Rows = append(t.Rows, []string{v.Row, figureLabel(v.Figure, v.Seed), Published(v.Published, nil), span, outcomeText(v.Outcome, v.Ratio), cov, method, mean, pct})
	}
	return t
}

// methodNotes returns, for each method among verdicts that judged a number,
// in a fixed order, how it draws its interval at the coverage asked.
func methodNotes(verdicts []results.Verdict, coverage float64) []string {
	used := map[results.Method]bool{}
	for _, v := range verdicts {
		if v.Outcome != results.NoData {
			used[v.Method] = true
		}
	}
	var out []string
	for _, m := range []struct {
		method results.Method
		note   string
	}{
		{results.MethodNormal, fmt.Sprintf("a near-normal figure (n ≥ %d, skewness not beyond %s): mean ± t·s·√(1 + 1/n), each side at least as wide as that side's own spread",
			results.NormalMin, Num(results.SkewTolerance))},
		{results.MethodOrder, fmt.Sprintf("any other figure: the j-th smallest to the j-th largest of n, coverage (n + 1 − 2j)/(n + 1); below n = %d only the smallest and largest, (n − 1)/(n + 1)",
			results.OrderMin(coverage))},
		{results.MethodConstant, "a figure that never varied: that value, coverage n/(n + 1) (a new run that differs is the odd one out of n + 1)"},
		{results.MethodBinomial, "a fraction over the trials: the exact test that the published count has the chance of ours"},
	} {
		if used[m.method] {
			out = append(out, "method "+string(m.method)+": "+m.note)
		}
	}
	return out
}
