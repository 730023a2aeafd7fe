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
