package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/notesbench/notesbench/results"
)

// ConformTables is the verdict table and, when a check failed, the evidence.
func ConformTables(rep results.ConformReport) []Table {
	verdicts := Table{
		Title:  "conform: " + rep.Target,
		Header: []string{"Check", "Outcome", "What was seen"},
		Notes: []string{
			rep.Describe,
			fmt.Sprintf("%d passed, %d failed, %d for information (clauses the write-ups leave open)", rep.Passed, rep.Failed, rep.Info),
		},
	}
	if rep.NotApplicable > 0 {
		verdicts.Notes[1] += fmt.Sprintf(", %d not applicable (what the server lacks)", rep.NotApplicable)
	}
	evidence := Table{Title: "Evidence of the failures", Header: []string{"Check", "Tool", "Request", "Reply"}}
	for _, c := range rep.Checks {
		verdicts.Rows = append(verdicts.Rows, []string{c.Name, string(c.Outcome), c.Detail})
		for _, ex := range c.Evidence {
			replyText := string(ex.Reply)
			if ex.Error != "" {
				replyText = ex.Error
			}
			evidence.Rows = append(evidence.Rows, []string{c.Name, ex.Tool, clip(string(ex.Request)), clip(replyText)})
		}
	}
	if len(evidence.Rows) == 0 {
		return []Table{verdicts}
	}
	return []Table{verdicts, evidence}
}

// clip shortens a long JSON text for a table cell to 160 characters;
// --format json has it whole.
func clip(s string) string {
	const limit = 160
	s = strings.ReplaceAll(s, "\n", `\n`)
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}
