package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	goldenfile "github.com/notesbench/notesbench/internal/golden"

	"github.com/notesbench/notesbench/results"
)

func TestMain(m *testing.M) {
	// Em and en dashes are ambiguous-width runes: pin their width to one column
	// so that the golden boxes do not depend on the locale of the machine.
	os.Setenv("RUNEWIDTH_EASTASIAN", "0")
	os.Exit(m.Run())
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) { goldenfile.Check(t, name, got) }

// sampleTables is what an experiment hands to Render: a race table with ours
// beside published, built as report/doc.go describes, and its verdict table.
func sampleTables(t *testing.T) []Table {
	t.Helper()
	race, ok := results.Lookup("race")
	if !ok {
		t.Fatal("no published race")
	}
	pub := &race.Tables[0]
	type ours struct {
		guard, policy string
		lost          int64
		claude, human int64
	}
	main := Table{
		Title:  "race: lost updates (virtual clock, seeds 1-5)",
		Header: []string{"Guard", "On conflict", "Lost", PublishedHeader("Lost"), "Lost claude / human", PublishedHeader("Lost claude / human")},
		Keys:   2,
		Notes:  append([]string{"warning: p99 from fewer than 100 samples | a pipe"}, SourceNotes(pub)...),
	}
	for _, o := range []ours{{"none", "reapply", 301, 124, 177}, {"note", "reapply", 0, 0, 0}, {"note", "refresh", 310, 120, 190}} {
		r, _ := race.Match(map[string]string{"guard": o.guard, "policy": o.policy})
		pubPair := NotPublished
		if c, ok := r.Figure("lost_claude"); ok {
			h, _ := r.Figure("lost_human")
			pubPair = c.String() + " / " + h.String()
		}
		main.Rows = append(main.Rows, []string{o.guard, o.policy, Int(o.lost), Published(r.Figures["lost"], nil),
			Int(o.claude) + " / " + Int(o.human), pubPair})
	}
	vs := []results.Verdict{
		{Figure: "lost", Row: "none", Published: results.PointFigure(300), OursMean: 301.5, OursLow: 250, OursHigh: 352.25, Percentile: 48.5, N: 200,
			Method: results.MethodNormal, Coverage: 0.99, Outcome: results.Consistent},
		{Figure: "mean_tries_claude", Row: "note reapply", Published: results.RangeFigure(1.41, 1.48), OursMean: 1.2, OursLow: 1.1, OursHigh: 1.3, Percentile: 100, N: 100,
			Method: results.MethodOrder, Coverage: 99.0 / 101, Outcome: results.Differs},
		{Figure: "calls_sent", Row: "A key-first fresh", Seed: 2, Published: results.PointFigure(61), OursMean: 64.5, OursLow: 55, OursHigh: 75, Percentile: 21, N: 300,
			Method: results.MethodOrder, Coverage: 299.0 / 301, Outcome: results.Consistent},
		{Figure: "wall_s", Row: "none", Published: results.RangeFigure(9.6, 10.5), OursMean: 0.41, OursLow: 0.4, OursHigh: 0.42, Percentile: 0, N: 5,
			Method: results.MethodOrder, Coverage: 4.0 / 6, Outcome: results.RatioOnly, Ratio: 0.0405},
		{Figure: "minimal", Row: "add_note_source url only", Published: results.TextFigure("missing title"), OursText: "missing title", N: 1,
			Method: results.MethodText, Outcome: results.Consistent},
		{Figure: "lost", Row: "tab", Published: results.PointFigure(0), Outcome: results.NoData},
	}
	return []Table{main, VerdictTable("race: verdicts", results.DefaultMass, vs)}
}

func TestRenderGolden(t *testing.T) {
	tables := sampleTables(t)
	for _, tc := range []struct {
		f    Format
		file string
	}{
		{FormatTable, "race.txt"},
		{FormatMarkdown, "race.md"},
		{FormatCSV, "race.csv"},
	} {
		var buf bytes.Buffer
		if err := Render(&buf, tc.f, tables...); err != nil {
			t.Fatalf("Render(%s): %v", tc.f, err)
		}
		golden(t, tc.file, buf.Bytes())
	}
	// json writes a result, never tables: here the tables stand for one.
	var buf bytes.Buffer
	if err := Write(&buf, FormatJSON, 0, Output{Section: Section{Main: tables}, Result: tables}); err != nil {
		t.Fatal(err)
	}
	golden(t, "race.json", buf.Bytes())
}

func TestRenderCSVReadsBack(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, FormatCSV, sampleTables(t)...); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll() // every record as wide as the header
	if err != nil {
		t.Fatal(err)
	}
	// One header; the main table's 3 rows × 4 cells beyond its 2 key columns,
	// then 6 verdicts × 7 cells beyond theirs.
	if len(recs) != 1+12+42 || !slices.Equal(recs[0], CSVHeader) || recs[1][0] != "race: lost updates (virtual clock, seeds 1-5)" ||
		recs[1][1] != "none reapply" || recs[1][2] != "Lost" || recs[1][4] != "301" {
		t.Errorf("records = %q", recs)
	}
}

// json is the result object, indented, "<" not escaped, read back as it
// was; it never renders the tables beside it.
func TestWriteJSONResult(t *testing.T) {
	type result struct {
		Experiment string   `json:"experiment"`
		Rows       []string `json:"rows"`
	}
	var buf bytes.Buffer
	tables := []Table{{Title: "not written", Header: []string{"a"}}}
	if err := Write(&buf, FormatJSON, 80, Output{Section: Section{Main: tables}, Result: result{"t <&>", []string{}}}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"experiment\": \"t <&>\",\n  \"rows\": []\n}\n"
	if buf.String() != want {
		t.Errorf("JSON = %q, want %q", buf.String(), want)
	}
	var back result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Experiment != "t <&>" {
		t.Errorf("read back %+v, %v", back, err)
	}
}

func TestRenderErrors(t *testing.T) {
	ok := Table{Title: "ok", Header: []string{"a"}, Rows: [][]string{{"1"}}}
	for _, tc := range []struct {
		f      Format
		tables []Table
		want   string
	}{
		{FormatTable, []Table{ok, {Title: "bad", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}, {"3"}}}}, `table "bad": row 2 has 1 cells, the header 2`},
		{FormatMarkdown, []Table{{Title: "empty"}}, `table "empty" has no header`},
		{FormatGoBench, []Table{ok}, "format gobench holds benchmark results, not tables"},
		{FormatJSON, []Table{ok}, "format json holds the JSON result, not tables"},
		{FormatHTML, []Table{ok}, "format html holds an HTML page, not tables"},
		{Format("yaml"), []Table{ok}, `unknown format "yaml" (want table, markdown, csv, json, gobench or html)`},
	} {
		var buf bytes.Buffer
		err := Render(&buf, tc.f, tc.tables...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Render(%s) error = %v, want %q", tc.f, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("Render(%s) wrote %q before failing", tc.f, buf.String())
		}
	}
}

func TestParseFormat(t *testing.T) {
	var got []Format
	for _, s := range []string{"table", "markdown", "csv", "json", "gobench", "html"} {
		f, err := Formats.Parse(s)
		if err != nil || f.String() != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
		got = append(got, f)
	}
	if !slices.Equal(got, []Format{FormatTable, FormatMarkdown, FormatCSV, FormatJSON, FormatGoBench, FormatHTML}) {
		t.Errorf("formats = %v", got)
	}
	for _, s := range []string{"yaml", "", "Table"} {
		_, err := Formats.Parse(s)
		if want := `unknown format "` + s + `" (want table, markdown, csv, json, gobench or html)`; err == nil || err.Error() != want {
			t.Errorf("ParseFormat(%q) error = %v, want %q", s, err, want)
		}
	}
}

func TestWriteGoBench(t *testing.T) {
	var buf bytes.Buffer
	err := WriteGoBench(&buf,
		Benchmark{Name: "Write/guard=none", N: 2000, Metrics: []Metric{{61900, "ns/op"}, {16155.1, "writes/s"}}},
		Benchmark{Name: "Write/guard=note rep 2", N: 2000, Metrics: []Metric{{57000.5, "ns/op"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "bench.gobench", buf.Bytes())
	for _, bad := range []Benchmark{{Name: "", N: 1, Metrics: []Metric{{1, "ns/op"}}}, {Name: "X", N: 0, Metrics: []Metric{{1, "ns/op"}}}, {Name: "X", N: 1, Metrics: []Metric{{1, "ns per op"}}}} {
		buf.Reset()
		if err := WriteGoBench(&buf, bad); err == nil || buf.Len() != 0 {
			t.Errorf("WriteGoBench(%+v) = %v, wrote %q", bad, err, buf.String())
		}
	}
}

func TestMarkdownEscapes(t *testing.T) {
	var buf bytes.Buffer
	tbl := Table{Title: "a|b", Header: []string{"x"}, Rows: [][]string{{`p|q\r` + "\nline"}}}
	if err := Render(&buf, FormatMarkdown, tbl); err != nil {
		t.Fatal(err)
	}
	want := "### a\\|b\n\n| x |\n|---|\n| p\\|q\\\\r<br>line |\n"
	if buf.String() != want {
		t.Errorf("markdown = %q, want %q", buf.String(), want)
	}
}

// A published figure the renderer names but no published row has is a
// misspelling: it panics, so that a test rendering it fails, rather than
// show "—" where a figure was published. One a row leaves out is "—".
func TestAMisspeltFigurePanics(t *testing.T) {
	exp, ok := results.Lookup("bench")
	if !ok {
		t.Fatal("no published bench")
	}
	p := PublishedFor(exp, map[string]string{"guard": exp.Tables[0].Rows[0].Key["guard"]})
	if !p.ok || Published(p.Figure("median_us"), nil) == NotPublished {
		t.Fatalf("the published median: %+v", p)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "publishes no figure called median_uss") {
			t.Errorf("a misspelt figure: %v", r)
		}
	}()
	p.Figure("median_uss")
}
