package main

import (
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// widest returns the display width of the widest line of s.
func widest(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, twwidth.Width(line))
	}
	return w
}

// The table format fits the terminal: $COLUMNS when set, 80 when the width
// is unknown (stdout is not a terminal here).
func TestTableFitsTheTerminal(t *testing.T) {
	args := []string{"race", "--clock", "virtual", "--seeds", "1", "--edits", "6", "--replications", "0", "--format", "table"}
	for _, tc := range []struct {
		columns string
		width   int
	}{{"80", 80}, {"120", 120}, {"", 80}, {"wide", 80}} {
		t.Setenv("COLUMNS", tc.columns)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if w := widest(stdout); w > tc.width {
			t.Errorf("COLUMNS=%q: a line is %d wide, want at most %d:\n%s", tc.columns, w, tc.width, stdout)
		}
	}
}

// Inputs that used to run for ever, ignore Ctrl-C or exhaust memory are bad
// usage: one line naming the flag, exit 2, before anything runs.
func TestBoundsRefuseRunaways(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"outline", "--saves-per-minute", "1e308", "--replications", "0"}, "notesbench: --saves-per-minute: must be at most 600"},
		{[]string{"outline", "--saves-per-minute", "1e6"}, "notesbench: --saves-per-minute: must be at most 600"},
		{[]string{"outline", "--decks", "1000000", "--slides", "1000"}, "notesbench: --decks: 1000000 decks of 1051 writes"},
		{[]string{"outline", "--window", "2h"}, "notesbench: --window: must be at most 1h0m0s"},
		{[]string{"sources", "--sessions", "1000000000"}, "notesbench: --sessions: must be at most 100,000"},
		{[]string{"sources", "--sessions", "10000000"}, "notesbench: --sessions: must be at most 100,000"},
		{[]string{"sources", "--sessions", "20000", "--turns", "3", "--cites", "6"}, "notesbench: --sessions: 20000 sessions × 3 turns × 6 cites are more than 100000 citations per seed"},
		{[]string{"sources", "--pages", "5000"}, "notesbench: --pages: must be at most 1,000"},
		{[]string{"create", "--tabs", "1000000000"}, "notesbench: --tabs: must be at most 1,000"},
		{[]string{"refs", "--trials", "10000000"}, "notesbench: --trials: must be at most 100,000"},
		{[]string{"race", "--edits", "1000000"}, "notesbench: --edits: must be at most 10,000"},
		{[]string{"fast", "--edits", "1000000"}, "notesbench: --edits: must be at most 10,000"},
		{[]string{"race", "--replications", "1000000"}, "notesbench: --replications: must be at most 10,000"},
		{[]string{"race", "--parallel", "100000"}, "notesbench: --parallel: must be at most 256"},
		{[]string{"bench", "--writes", "1000000000"}, "notesbench: --writes: must be at most 1,000,000"},
		{[]string{"bench", "--text-size", "1000000000"}, "notesbench: --text-size: must be at most 1,048,576"},
		{[]string{"bench", "--writers", "1,100000"}, "notesbench: --writers: 100000 is more than 64"},
		{[]string{"reproduce", "--replications", "1000000"}, "notesbench: --replications: must be at most 10,000"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
}
