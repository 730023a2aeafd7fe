package results

import "testing"

func TestCheckInvariants(t *testing.T) {
	rows := []map[string]any{
		{"guard": "note", "policy": "reapply", "lost": 0.0},
		{"guard": "note", "policy": "refresh", "lost": 250.0},
		{"guard": "tab", "policy": "reapply", "lost": 3.0},
	}
	d := CheckInvariants("race", rows)
	if len(d) != 1 || d[0].Path != "rows[2].lost" || d[0].Current != "3" {
		t.Fatalf("race: %v", d)
	}
	tabs := []map[string]any{
		{"guard": "note", "conflicts_claude": 117.0, "conflicts_human": 69.0, "lost": 0.0},
		{"guard": "tab", "conflicts_claude": 0.0, "conflicts_human": 2.0, "lost": 0.0},
	}
	if d := CheckInvariants("tabs", tabs); len(d) != 1 || d[0].Path != "rows[1].conflicts_human" {
		t.Fatalf("tabs: %v", d)
	}
	fast := []map[string]any{{"version_format": "ms", "lost": 40.0}, {"version_format": "counter", "lost": 0.0}}
	if d := CheckInvariants("fast", fast); len(d) != 0 {
		t.Fatalf("fast: %v", d)
	}
}

func TestCheckRanges(t *testing.T) {
	exp, _ := Lookup("race")
	recorded := []Verdict{
		{Figure: "conflicts_claude", Row: "note reapply", OursLow: 178, OursHigh: 207, Outcome: Differs},
		{Figure: "wall_s", Row: "note reapply", OursLow: 9, OursHigh: 10, Outcome: RatioOnly},
	}
	in := []map[string]any{{"guard": "note", "policy": "reapply", "conflicts_claude": 205.0, "wall_s": 20.0}}
	if d := CheckRanges(exp, recorded, in); len(d) != 0 {
		t.Fatalf("inside: %v", d)
	}
	out := []map[string]any{{"guard": "note", "policy": "reapply", "conflicts_claude": 215.0}}
	if d := CheckRanges(exp, recorded, out); len(d) != 1 || d[0].Baseline != "range 178–207" {
		t.Fatalf("outside: %v", d)
	}
}
