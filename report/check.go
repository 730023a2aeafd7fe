package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/check"
)

// CheckTables builds the verdict table and the table of runs; files says to
// name each run's file, html is the --html flag.
func CheckTables(rep *check.Report, title string, files bool, html string) []Table {
	verdicts := Table{
		Title:  title,
		Header: []string{"Check", "Verdict", "Judged", "Violations", "Not judged"},
	}
	for _, c := range rep.Checks {
		verdicts.Rows = append(verdicts.Rows, []string{c.Check, string(c.Verdict), strconv.Itoa(c.Judged), strconv.Itoa(c.Violations), strconv.Itoa(c.Unjudged)})
		for _, f := range c.First {
			verdicts.Notes = append(verdicts.Notes, c.Check+": "+f)
		}
		if c.Reason != "" && c.Verdict != check.Violated {
			verdicts.Notes = append(verdicts.Notes, c.Check+" "+string(c.Verdict)+": "+c.Reason)
		}
	}
	verdicts.Notes = append(verdicts.Notes, "judged: registers (linearizability), committed writes (versions, stale-overwrites), acknowledged intents (lost-updates), intents (duplicates)")
	switch {
	case html != "" && rep.Visualization != nil:
		verdicts.Notes = append(verdicts.Notes, "porcupine's page of the first linearizability violation: "+html)
	case html != "":
		verdicts.Notes = append(verdicts.Notes, "no linearizability violation: nothing written to "+html)
	}

	runs := Table{
		Title: "Runs",
		Header: []string{"Run", "Variant", "Policy", "Calls", "Linearizable", "Version collisions",
			"Lost (per editor)", "Duplicates", "Replay mismatches", "Stale overwrites"},
	}
	for _, r := range rep.Runs {
		var lost []string
		for _, e := range r.Editors {
			if e.Acknowledged > 0 {
				lost = append(lost, fmt.Sprintf("%s %d of %d", e.Editor, e.Lost, e.Acknowledged))
			}
		}
		v := r.Variant
		name := r.Run
		if files {
			name = r.File + ": " + name
		}
		runs.Rows = append(runs.Rows, []string{name, fmt.Sprintf("%s, %s, %s", v.Guard, v.VersionFormat, v.Order), r.Policy,
			strconv.Itoa(r.Calls), string(r.Linearizable), strconv.Itoa(r.VersionCollisions), strings.Join(lost, ", "),
			strconv.Itoa(r.Duplicates), strconv.Itoa(r.ReplayMismatches), strconv.Itoa(r.StaleOverwrites)})
	}
	return []Table{verdicts, runs}
}
