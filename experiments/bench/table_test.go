package bench

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

func TestDiffResult(t *testing.T) {
	for _, tc := range []struct {
		d    GuardDiff
		want string
	}{
		{GuardDiff{Guard: "note", Base: "none", Delta: -0.018, P: 0.4213, Alpha: 0.05},
			"note vs none: −1.8 % (p = 0.42, no significant difference)"},
		{GuardDiff{Guard: "tab", Base: "note", Delta: 0.05, P: 0.0021645, Alpha: 0.05, Significant: true},
			"tab vs note: +5.0 % (p = 0.0022, significant at α = 0.05)"},
		{GuardDiff{Guard: "tab", Base: "none", Delta: 0, P: 0.00001, Alpha: 0.05, Significant: true},
			"tab vs none: 0.0 % (p < 0.0001, significant at α = 0.05)"},
	} {
		if got := tc.d.Guard + " vs " + tc.d.Base + ": " + diffResult(tc.d); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestBenchGoBench(t *testing.T) {
	runs := []RunSummary{
		{Guard: "note", Writers: 1, Rep: 1, Stats: Stats{MedianUS: 51.234, P99US: 420.5, P999US: 1000.0004, Writes: 2000, WritesPerS: 16155.1}},
		{Guard: "tab", Writers: 4, Rep: 1, Stats: Stats{MedianUS: 60, P99US: 61, P999US: 62, Writes: 8000, WritesPerS: 100}},
	}
	var b bytes.Buffer
	if err := report.WriteGoBench(&b, GoBench(runs)...); err != nil {
		t.Fatal(err)
	}
	want := "BenchmarkEditNoteTab/guard=note\t2000\t51234 ns/op\t420500 p99-ns/op\t1000000 p99.9-ns/op\t16155.1 writes/s\n" +
		"BenchmarkEditNoteTab/guard=tab/writers=4\t8000\t60000 ns/op\t61000 p99-ns/op\t62000 p99.9-ns/op\t100 writes/s\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The published median (a range over repetitions) stands beside the range of
// our per-repetition medians, on one-writer rows only; warnings become notes.
func TestBenchTable(t *testing.T) {
	exp, ok := results.Lookup("bench")
	if !ok {
		t.Fatal("no published bench")
	}
	rows := []Row{
		{Guard: "note", Writers: 1, MedianUS: 20.04, P90US: 25, P99US: 300, P999US: 900, MaxUS: 5000, Writes: 6000, Reps: 3,
			WritesPerS: 40000.4, RepMediansUS: []float64{20.1, 19.96, 20.5}},
		{Guard: "note", Writers: 2, MedianUS: 30, RepMediansUS: []float64{30}},
	}
	tb := Table(rows, exp, []string{"p99.9 rests on few samples"})
	wantHeader := []string{"Guard", "Writers", "Median", "Median per rep", "Median per rep (published)", "p90", "p99", "p99 (published)",
		"p99.9", "Max", "Writes", "Writes/s"}
	if !slices.Equal(tb.Header, wantHeader) {
		t.Fatalf("header %q", tb.Header)
	}
	want0 := []string{"note", "1", "20.0", "20.0–20.5", "57.0–58.8", "25.0", "300.0", "420–1330", "900.0", "5,000.0", "6,000", "40,000"}
	if !slices.Equal(tb.Rows[0], want0) {
		t.Fatalf("row 0 %q,\nwant   %q", tb.Rows[0], want0)
	}
	if tb.Rows[1][4] != report.NotPublished || tb.Rows[1][3] != "30.0" {
		t.Fatalf("row 1 %q", tb.Rows[1])
	}
	if len(tb.Notes) != 1 || tb.Notes[0] != "warning: p99.9 rests on few samples" {
		t.Fatalf("notes %q", tb.Notes)
	}
	if got := Table(rows, nil, nil); slices.Contains(got.Header, "p99 (published)") {
		t.Fatalf("published column without published figures: %q", got.Header)
	}
	var b bytes.Buffer
	if err := report.Render(&b, report.FormatMarkdown, tb, DiffTable([]GuardDiff{{Writers: 1, Guard: "note", Base: "none",
		Over: OverRepMedians, N: 3, NBase: 3, Delta: -0.018, P: 0.42, Alpha: 0.05}}, 0.05)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| note vs none | per-repetition medians (3 vs 3) | −1.8 % (p = 0.42, no significant difference) |",
		"- significance level α = 0.05"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// Retries per write get a column when a row's store counted them, a dash
// where one did not, and no column at all when none did.
func TestBenchTableRetries(t *testing.T) {
	zero, some := 0.0, 0.1234
	rows := []Row{
		{Guard: "note", Writers: 1, RetriesPerWrite: &zero},
		{Guard: "note", Writers: 8, RetriesPerWrite: &some},
		{Guard: "none", Writers: 1},
	}
	tb := Table(rows, nil, nil)
	if last := tb.Header[len(tb.Header)-1]; last != "Retries per write" {
		t.Fatalf("header %q", tb.Header)
	}
	for i, want := range []string{"0.000", "0.123", report.NotPublished} {
		if got := tb.Rows[i][len(tb.Rows[i])-1]; got != want {
			t.Errorf("row %d: %q, want %q", i, got, want)
		}
	}
	if !slices.ContainsFunc(tb.Notes, func(n string) bool { return strings.HasPrefix(n, "retries per write: ") }) {
		t.Errorf("no note says what a retry is: %q", tb.Notes)
	}
	tb = Table(rows[2:], nil, nil)
	if slices.Contains(tb.Header, "Retries per write") || len(tb.Notes) != 0 {
		t.Fatalf("a store that counts no retries: %q, notes %q", tb.Header, tb.Notes)
	}
}
