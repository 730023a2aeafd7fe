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
		t.Rows = append(t.Rows, []string{string(r.Synchronous), strconv.Itoa(r.Kills), strconv.Itoa(r.Writes), strconv.Itoa(r.Acknowledged),
			strconv.Itoa(r.CutOff), strconv.Itoa(r.CommittedBeforeKill), strconv.Itoa(r.LostAcknowledged), r.Integrity, fmt.Sprintf("%.1f", r.Seconds)})
	}
	return append([]Table{t}, CheckTables(checks, "Checks of the recorded history", false, "")...)
}
