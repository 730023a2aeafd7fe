package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// NotChecked stands in a table for a figure that was not judged: "—",
// never a 0 that reads as none found.
const NotChecked = "—"

// CheckTables builds the verdict table and the table of runs; files says to
// name each run's file, html is the --html flag.
func CheckTables(rep *results.CheckReport, title string, files bool, html string) []Table {
	verdicts := Table{
		Title:  title,
		Header: []string{"Check", "Verdict", "Judged", "Violations", "Not judged"},
	}
	for _, c := range rep.Checks {
		verdicts.Rows = append(verdicts.Rows, []string{c.Check, string(c.Verdict), Int(int64(c.Judged)), Int(int64(c.Violations)), Int(int64(c.Unjudged))})
		for _, f := range c.First {
			verdicts.Notes = append(verdicts.Notes, c.Check+": "+f)
		}
		if c.Reason != "" && c.Verdict != results.CheckViolated {
			verdicts.Notes = append(verdicts.Notes, c.Check+" "+string(c.Verdict)+": "+c.Reason)
		}
	}
	verdicts.Notes = append(verdicts.Notes, "judged: registers (linearizability), committed writes (versions, stale-overwrites), acknowledged intents (lost-updates), intents (duplicates), reads of a text (empty-reads)")
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
	// A figure of a check that could not judge everything is not known: it
	// shows as NotChecked, never as a count that reads as none.
	known := map[string]bool{}
	for _, c := range rep.Checks {
		known[c.Check] = c.Verdict != results.CheckUnknown
	}
	count := func(chk string, n int) string {
		if !known[chk] {
			return NotChecked
		}
		return Int(int64(n))
	}
	for _, r := range rep.Runs {
		var lost []string
		for _, e := range r.Editors {
			if e.Acknowledged > 0 {
				lost = append(lost, fmt.Sprintf("%s %s of %s", e.Editor, count(results.CheckLostUpdates, e.Lost), Int(int64(e.Acknowledged))))
			}
		}
		v := r.Variant
		name := r.Run
		if files {
			name = r.File + ": " + name
		}
		runs.Rows = append(runs.Rows, []string{name, fmt.Sprintf("%s, %s, %s", v.Guard, v.VersionFormat, v.Order), r.Policy,
			Int(int64(r.Calls)), string(r.Linearizable), count(results.CheckVersions, r.VersionCollisions), strings.Join(lost, ", "),
			count(results.CheckDuplicates, r.Duplicates), count(results.CheckDuplicates, r.ReplayMismatches), count(results.CheckStaleOverwrites, r.StaleOverwrites)})
	}
	return []Table{verdicts, runs}
}

// CheckRecords are a check's figures as tidy CSV records (see CSVHeader):
// table "check" holds one record per figure of each check (its verdict,
// judged, violations, not judged), table "check_runs" one per figure of each
// run, named by their JSON keys. A figure of a check that could not judge
// everything is empty.
func CheckRecords(rep *results.CheckReport) []Record {
	var out []Record
	known := map[string]bool{}
	for _, c := range rep.Checks {
		known[c.Check] = c.Verdict != results.CheckUnknown
		row := c.Check
		out = append(out,
			Record{Table: "check", Row: row, Figure: "verdict", Ours: string(c.Verdict)},
			Record{Table: "check", Row: row, Figure: "judged", Ours: strconv.Itoa(c.Judged)},
			Record{Table: "check", Row: row, Figure: "violations", Ours: strconv.Itoa(c.Violations)},
			Record{Table: "check", Row: row, Figure: "unjudged", Ours: strconv.Itoa(c.Unjudged)})
	}
	count := func(chk string, n int) string {
		if !known[chk] {
			return ""
		}
		return strconv.Itoa(n)
	}
	for _, r := range rep.Runs {
		row := r.File + " " + r.Run
		add := func(figure, value string) {
			out = append(out, Record{Table: "check_runs", Row: row, Figure: figure, Ours: value})
		}
		add("calls", strconv.Itoa(r.Calls))
		add("linearizable", string(r.Linearizable))
		add("version_collisions", count(results.CheckVersions, r.VersionCollisions))
		add("lost", count(results.CheckLostUpdates, r.Lost))
		add("duplicates", count(results.CheckDuplicates, r.Duplicates))
		add("replay_mismatches", count(results.CheckDuplicates, r.ReplayMismatches))
		add("stale_overwrites", count(results.CheckStaleOverwrites, r.StaleOverwrites))
	}
	return out
}
