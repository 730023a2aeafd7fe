package report

import (
	"strconv"

	"github.com/notesbench/notesbench/results"
)

// RefsTable renders refs rows, published values beside ours when exp is set.
// Fractions print as percentages.
func RefsTable(rows []results.RefsRow, exp *results.Experiment) Table {
	show := exp != nil
	t := Table{
		Title:  "Where a kept tab reference resolves after the person's edits",
		Keys:   2,
		Header: append([]string{"K", "Reference"}, headers(show, "Correct", "Wrong deck", "Not found", "Writes passing the version check")...),
	}
	for _, r := range rows {
		pub := lookupPub(exp, map[string]string{"k": strconv.Itoa(r.K), "ref": r.Ref})
		t.Rows = append(t.Rows, append([]string{strconv.Itoa(r.K), r.Ref}, withPublished(show,
			[2]string{Pct(r.Correct), pub.cell(Pct, "correct")},
			[2]string{Pct(r.Wrong), pub.cell(Pct, "wrong")},
			[2]string{Pct(r.NotFound), pub.cell(Pct, "not_found")},
			[2]string{Pct(r.PassedVersionCheck) + " of " + Int(int64(r.Writes-r.Refused)), pub.cell(Pct, "passed_version_check")},
		)...))
	}
	return t
}

// OutlineTable renders outline rows, published values beside ours when exp is
// set.
func OutlineTable(rows []results.OutlineRow, exp *results.Experiment) Table {
	show := exp != nil
	t := Table{
		Title:  "One create with an outline, or slide by slide",
		Header: append([]string{"Approach"}, headers(show, "Writes", "Request bytes", "Conflicts per deck")...),
	}
	t.Header = append(t.Header, "Exact expectation")
	for _, r := range rows {
		pub := lookupPub(exp, map[string]string{"approach": r.Approach})
		cells := append([]string{r.Approach}, withPublished(show,
			[2]string{Int(int64(r.Writes)), pub.cell(nil, "writes")},
			[2]string{Int(int64(r.RequestBytes)), pub.cell(nil, "request_bytes")},
			[2]string{Fixed(r.ConflictsPerDeck, 3), pub.cell(nil, "conflicts_per_deck")},
		)...)
		t.Rows = append(t.Rows, append(cells, Fixed(r.ExpectedConflicts, 3)))
	}
	return t
}

// ValidateTable renders the validate rows: both verdicts, and the published
// verdict of the minimal validator beside ours when exp is set.
func ValidateTable(rows []results.ValidateRow, exp *results.Experiment) Table {
	show := exp != nil
	t := Table{
		Title:  "Payloads a model might send: a minimal validator against the full JSON Schema",
		Keys:   2,
		Header: append(append([]string{"Tool", "Payload (ids omitted)"}, headers(show, "Minimal validator")...), "Full validator"),
	}
	for _, r := range rows {
		pub := lookupPub(exp, map[string]string{"tool": r.Tool, "payload": r.Payload})
		cells := append([]string{r.Tool, r.Payload}, withPublished(show, [2]string{r.Minimal, pub.cell(nil, "minimal")})...)
		t.Rows = append(t.Rows, append(cells, r.Full))
	}
	return t
}
