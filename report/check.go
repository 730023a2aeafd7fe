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

// CheckTables builds the verdict table, the table of runs and, for served
// histories, the table of agents; files says to name each run's file, html is
// the --html flag.
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
	return append([]Table{verdicts, runs}, agentTables(rep, files)...)
}

// CheckRecords are a check's figures as tidy CSV records (see CSVHeader):
// table "check" holds one record per figure of each check (its verdict,
// judged, violations, not judged), table "check_runs" one per figure of each
// run, and for served histories table "check_agents" one per figure of each
// agent, named by their JSON keys. A figure of a check that could not judge
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
	return append(out, agentRecords(rep)...)
}

// agentTables is the table of the agents of served histories, one row per
// agent (none when the histories are not served ones); files says to name
// each agent's file.
func agentTables(rep *results.CheckReport, files bool) []Table {
	if rep.Agents == nil {
		return nil
	}
	t := Table{
		Title: "Agents",
		Header: []string{"Agent", "Verdict", "Sessions", "Writes", "Conflicts", "Re-reads", "Re-applies", "Refreshes",
			"Same-key resends", "Key changes", "Duplicates", "Person's lines dropped", "Stale writes", "Tab references"},
	}
	for _, ag := range rep.Agents {
		name := ag.Agent
		if files {
			name = ag.File + ": " + name
		}
		n := func(v int) string { return Int(int64(v)) }
		t.Rows = append(t.Rows, []string{name, ag.Verdict, n(len(ag.Sessions)), n(ag.Writes), n(ag.Conflicts), n(ag.ReReads),
			n(ag.ReApplies), n(ag.Refreshes), n(ag.SameKeyResends), n(ag.KeyChanges), n(ag.Duplicates), n(ag.PersonLinesDropped),
			n(ag.StaleWrites), n(ag.TabReferences)})
		if len(ag.Why) > 0 {
			t.Notes = append(t.Notes, name+": "+ag.Verdict+": "+strings.Join(ag.Why, "; "))
		}
	}
	if len(rep.Agents) == 0 {
		t.Notes = append(t.Notes, "no client called the server")
	}
	t.Notes = append(t.Notes, "an agent is a client's MCP clientInfo name and version, over as many sessions as it opened (a stateless client's: its requests over one connection); after a conflict, a re-apply builds its next write on what it read since, a refresh sends the fresh version with the text it built before",
		"judged: the person's lines (person-lines), committed texts (stale-writes), writes whose aim the server can tell (key-changes), calls that name a tab (tab-references)")
	return []Table{t}
}

// agentRecords are the agents' figures as tidy CSV records, table
// "check_agents", one per figure of each agent, named by their JSON keys.
func agentRecords(rep *results.CheckReport) []Record {
	var out []Record
	for _, ag := range rep.Agents {
		row := ag.File + " " + ag.Run + " " + ag.Agent
		add := func(figure string, v int) {
			out = append(out, Record{Table: "check_agents", Row: row, Figure: figure, Ours: strconv.Itoa(v)})
		}
		out = append(out, Record{Table: "check_agents", Row: row, Figure: "verdict", Ours: ag.Verdict})
		add("writes", ag.Writes)
		add("conflicts", ag.Conflicts)
		add("rereads", ag.ReReads)
		add("reapplies", ag.ReApplies)
		add("refreshes", ag.Refreshes)
		add("same_key_resends", ag.SameKeyResends)
		add("key_changes", ag.KeyChanges)
		add("duplicates", ag.Duplicates)
		add("person_lines_dropped", ag.PersonLinesDropped)
		add("stale_writes", ag.StaleWrites)
		add("tab_references", ag.TabReferences)
	}
	return out
}
