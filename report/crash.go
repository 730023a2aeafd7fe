package report

import (
	"fmt"
	"strconv"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/internal/crash"
)

// CrashTables are the tables of a kill -9 test: its runs, then the checks of
// the recorded history. life is how long each child serves, as written.
func CrashTables(s crash.Settings, life string, runs []crash.RunVerdict, checks *check.Report) []Table {
	t := Table{
		Title: fmt.Sprintf("Kill -9 test: %d SIGKILLs per setting, each child serving %s, seed %d", s.Kills, life, s.Seed),
		Header: []string{"Synchronous", "Kills survived", "Writes sent", "Acknowledged", "Cut off by a kill", "Of those committed",
			"Lost acknowledged", "Integrity check", "Seconds"},
		Notes: []string{
			"WAL mode; an acknowledgement is an answer the child sent after COMMIT returned",
			"cut off: writes in flight at a kill, resent with the same key after the restart; committed: their resend was a replay",
			"lost acknowledged: acknowledged lines and sources missing from the database after the last kill, found by the checks below",
		},
	}
	for _, r := range runs {
		lost := NotChecked
		if r.LostAcknowledged != nil {
			lost = Int(int64(*r.LostAcknowledged))
		}
		t.Rows = append(t.Rows, []string{string(r.Synchronous), Int(int64(r.Kills)), Int(int64(r.Writes)), Int(int64(r.Acknowledged)),
			Int(int64(r.CutOff)), Int(int64(r.CommittedBeforeKill)), lost, r.Integrity, Fixed(r.Seconds, 1)})
	}
	return append([]Table{t}, CheckTables(checks, "Checks of the recorded history", false, "")...)
}

// CrashRecords are a kill -9 test's figures as tidy CSV records (see
// CSVHeader): table "crash" one record per figure of each synchronous
// setting's run, named by their JSON keys, then the checks' records.
func CrashRecords(runs []crash.RunVerdict, checks *check.Report) []Record {
	var out []Record
	for _, r := range runs {
		add := func(figure, value string) {
			out = append(out, Record{Table: "crash", Row: string(r.Synchronous), Figure: figure, Ours: value})
		}
		lost := ""
		if r.LostAcknowledged != nil {
			lost = strconv.Itoa(*r.LostAcknowledged)
		}
		add("kills", strconv.Itoa(r.Kills))
		add("writes", strconv.Itoa(r.Writes))
		add("acknowledged", strconv.Itoa(r.Acknowledged))
		add("cut_off", strconv.Itoa(r.CutOff))
		add("committed_before_kill", strconv.Itoa(r.CommittedBeforeKill))
		add("lost_acknowledged", lost)
		add("integrity", r.Integrity)
		add("seconds", plain(r.Seconds))
	}
	return append(out, CheckRecords(checks)...)
}
