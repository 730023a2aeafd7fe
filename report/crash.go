package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// CrashTables are the tables of a kill -9 test: its runs, then the checks of
// the recorded history.
func CrashTables(s results.CrashSettings, runs []results.CrashRun, checks *results.CheckReport) []Table {
	t := Table{
		Title: fmt.Sprintf("Kill -9 test: %d SIGKILLs per run, each server serving %s, seed %d", s.Kills, crashLife(s), s.Seed),
		Header: []string{"Synchronous", "Kills survived", "Writes sent", "Acknowledged", "Cut off by a kill", "Of those committed",
			"Lost acknowledged", "Applied twice", "Reads of no document", "Final state", "Integrity check", "Seconds"},
		Notes: []string{
			"the embedded store: notesbench serve over stdio on a WAL database; an acknowledgement is a write's reply, which it sends after COMMIT returned",
			"cut off: writes in flight at a kill, resent with the same key after the restart; committed: their resend was a replay",
			"lost acknowledged: acknowledged lines and sources missing from the final state, read through a server started again after the last kill",
		},
	}
	if s.Target != "" {
		t.Header[0] = "Target"
		t.Notes[0] = "an acknowledgement is a write the server answered as done"
		if s.Profile != "" {
			t.Notes[0] += "; the contract mapped through profile " + s.Profile
		}
	}
	for _, r := range runs {
		first := string(r.Synchronous)
		if r.Target != "" {
			first = r.Target
		}
		final := "reads"
		if r.Unreadable != "" {
			final = "does not read"
		}
		integrity := r.Integrity
		if integrity == "" {
			integrity = NotChecked
		}
		t.Rows = append(t.Rows, []string{first, Int(int64(r.Kills)), Int(int64(r.Writes)), Int(int64(r.Acknowledged)),
			Int(int64(r.CutOff)), Int(int64(r.CommittedBeforeKill)), Int(int64(r.LostAcknowledged)), Int(int64(r.Duplicates)), Int(int64(r.UnreadableReads)), final, integrity, Fixed(r.Seconds, 1)})
		if r.Unreadable != "" {
			t.Notes = append(t.Notes, r.Run+": "+r.Unreadable)
		}
		if len(r.NewFiles) > 0 {
			shown := r.NewFiles
			if len(shown) > 5 {
				shown = append(shown[:5:5], "…")
			}
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %d files appeared in %s: %s", r.Run, len(r.NewFiles), s.Watch, strings.Join(shown, ", ")))
		}
	}
	return append([]Table{t}, CheckTables(checks, "Checks of the recorded history", false, "")...)
}

// crashLife is how long each server of a kill -9 test serves, as --life
// writes it: "5ms-40ms", or one duration when the range is one.
func crashLife(s results.CrashSettings) string {
	if s.LifeMinNS == s.LifeMaxNS {
		return s.LifeMinNS.String()
	}
	return s.LifeMinNS.String() + "-" + s.LifeMaxNS.String()
}

// CrashRecords are a kill -9 test's figures as tidy CSV records (see
// CSVHeader): table "crash" one record per figure of each run, named by
// their JSON keys, then the checks' records.
func CrashRecords(runs []results.CrashRun, checks *results.CheckReport) []Record {
	var out []Record
	for _, r := range runs {
		row := string(r.Synchronous)
		if r.Target != "" {
			row = r.Target
		}
		add := func(figure, value string) {
			out = append(out, Record{Table: "crash", Row: row, Figure: figure, Ours: value})
		}
		add("kills", strconv.Itoa(r.Kills))
		add("writes", strconv.Itoa(r.Writes))
		add("acknowledged", strconv.Itoa(r.Acknowledged))
		add("cut_off", strconv.Itoa(r.CutOff))
		add("committed_before_kill", strconv.Itoa(r.CommittedBeforeKill))
		add("lost_acknowledged", strconv.Itoa(r.LostAcknowledged))
		add("duplicates", strconv.Itoa(r.Duplicates))
		add("unreadable_reads", strconv.Itoa(r.UnreadableReads))
		add("unreadable", r.Unreadable)
		add("integrity", r.Integrity)
		add("new_files", strconv.Itoa(len(r.NewFiles)))
		add("seconds", Plain(r.Seconds))
	}
	return append(out, CheckRecords(checks)...)
}
