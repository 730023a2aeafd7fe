package results

import "testing"

func TestCheckInvariants(t *testing.T) {
	rows := []RaceRow{
		{Guard: "note", Policy: "reapply", Lost: 0},
		{Guard: "note", Policy: "refresh", Lost: 250},
		{Guard: "tab", Policy: "reapply", Lost: 3},
	}
	d := CheckInvariants("race", rows)
	if len(d) != 1 || d[0].Path != "rows[2].lost" || d[0].Current != "3" {
		t.Fatalf("race: %v", d)
	}
	tabs := []TabsRow{
		{Guard: "note", ConflictsClaude: 117, ConflictsHuman: 69},
		{Guard: "tab", ConflictsHuman: 2},
	}
	if d := CheckInvariants("tabs", tabs); len(d) != 1 || d[0].Path != "rows[1].conflicts_human" {
		t.Fatalf("tabs: %v", d)
	}
	fast := []FastRow{{VersionFormat: "ms", Lost: 40}, {VersionFormat: "counter"}}
	if d := CheckInvariants("fast", fast); len(d) != 0 {
		t.Fatalf("fast: %v", d)
	}
	fast[1].Lost = 1
	if d := CheckInvariants("fast", fast); len(d) != 1 || d[0].Path != "rows[1].lost" {
		t.Fatalf("fast counter loss: %v", d)
	}
}

func TestCheckRanges(t *testing.T) {
	exp, _ := Lookup("race")
	recorded := []Verdict{
		{Figure: "conflicts_claude", Row: "note reapply", OursLow: 178, OursHigh: 207, Outcome: Differs},
		{Figure: "wall_s", Row: "note reapply", OursLow: 9, OursHigh: 10, Outcome: RatioOnly},
	}
	in := []RaceRow{{Guard: "note", Policy: "reapply", ConflictsClaude: 205, WallS: 20}}
	if d := CheckRanges(exp, recorded, in); len(d) != 0 {
		t.Fatalf("inside: %v", d)
	}
	out := []RaceRow{{Guard: "note", Policy: "reapply", ConflictsClaude: 215}}
	if d := CheckRanges(exp, recorded, out); len(d) != 1 || d[0].Baseline != "range 178–207" {
		t.Fatalf("outside: %v", d)
	}
}
