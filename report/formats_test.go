package report

import (
	"bytes"
	"errors"
	"io"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

// fullOutput holds something of every kind, each told apart from the others.
func fullOutput() Output {
	return Output{
		Section: Section{
			Main:    []Table{{Title: "t", Header: []string{"Row", "Lost"}, Rows: [][]string{{"none", "3"}}, Notes: []string{"a note"}}},
			Records: []Record{{Table: "race", Row: "none", Figure: "lost", Ours: "3"}},
		},
		Result:  map[string]any{"experiment": "race", "rows": []int{3}},
		GoBench: []Benchmark{{Name: "Write/guard=none", N: 10, Metrics: []Metric{{61900, "ns/op"}}}},
		HTML:    func(w io.Writer) error { _, err := io.WriteString(w, "<!doctype html><html></html>\n"); return err },
	}
}

// Every format renders the part of an output that is its own, exactly as
// that part's writer writes it, and nothing of the rest: so a format that
// is listed has a renderer, and json is the result object, never tables.
func TestEveryFormatRenders(t *testing.T) {
	o := fullOutput()
	own := func(f Format) string {
		var b bytes.Buffer
		var err error
		switch f {
		case FormatTable, FormatMarkdown:
			err = RenderWidth(&b, f, 60, o.Section.Tables()...)
		case FormatCSV:
			err = WriteCSV(&b, o.Section.Records)
		case FormatJSON:
			err = WriteJSON(&b, o.Result)
		case FormatGoBench:
			err = WriteGoBench(&b, o.GoBench...)
		case FormatHTML:
			err = o.HTML(&b)
		default:
			t.Fatalf("format %s: the test does not know what it renders", f)
		}
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	seen := map[string]Format{}
	for _, f := range Formats.Values {
		var b bytes.Buffer
		if err := Write(&b, f, 60, o); err != nil {
			t.Fatalf("Write(%s): %v", f, err)
		}
		if want := own(f); b.Len() == 0 || b.String() != want {
			t.Errorf("Write(%s) = %q, want %q", f, b.String(), want)
		}
		if g, ok := seen[b.String()]; ok {
			t.Errorf("%s and %s write the same", g, f)
		}
		seen[b.String()] = f
	}
	if len(Formats.Values) != len(formats) {
		t.Errorf("Formats lists %d formats, the table %d", len(Formats.Values), len(formats))
	}
}

// Text stands for the tables in table and markdown, with the format and
// width it was asked for; the other formats never call it.
func TestWriteText(t *testing.T) {
	o := fullOutput()
	var calls []string
	o.Text = func(w io.Writer, f Format, width int) error {
		calls = append(calls, f.String())
		if width != 72 {
			t.Errorf("Text got width %d", width)
		}
		_, err := io.WriteString(w, "text "+f.String()+"\n")
		return err
	}
	for _, f := range Formats.Values {
		var b bytes.Buffer
		if err := Write(&b, f, 72, o); err != nil {
			t.Fatal(err)
		}
		if text := strings.HasPrefix(b.String(), "text "); text != (f == FormatTable || f == FormatMarkdown) {
			t.Errorf("Write(%s) = %q", f, b.String())
		}
	}
	if !slices.Equal(calls, []string{"table", "markdown"}) {
		t.Errorf("Text called for %q", calls)
	}
	boom := errors.New("boom")
	o.Text = func(io.Writer, Format, int) error { return boom }
	if err := Write(io.Discard, FormatTable, 0, o); !errors.Is(err, boom) {
		t.Errorf("Text's error: %v", err)
	}
}

// The formats a command offers follow from what its output holds, in the
// order --format lists them; each kind of content has a format, and each
// format renders one kind.
func TestFormatNames(t *testing.T) {
	tablesResult := ContentTables | ContentResult
	for _, tc := range []struct {
		holds Content
		want  []string
	}{
		{tablesResult, []string{"table", "markdown", "json"}},                                                     // conform, reproduce
		{tablesResult | ContentRecords, []string{"table", "markdown", "csv", "json"}},                             // experiments, check, crash
		{tablesResult | ContentRecords | ContentGoBench, []string{"table", "markdown", "csv", "json", "gobench"}}, // bench, merge
		{tablesResult | ContentPage, []string{"table", "markdown", "json", "html"}},                               // audit
		{0, nil},
	} {
		if got := FormatNames(tc.holds); !slices.Equal(got, tc.want) {
			t.Errorf("FormatNames(%s) = %q, want %q", tc.holds, got, tc.want)
		}
	}
	var all Content
	for _, s := range formats {
		if bits.OnesCount8(uint8(s.renders)) != 1 {
			t.Errorf("format %s renders %s: want one kind", s.format, s.renders)
		}
		all |= s.renders
	}
	for c := Content(1); c != 0; c <<= 1 {
		if c.String() != "" && all&c == 0 {
			t.Errorf("no format renders %s", c)
		}
	}
	if got := (ContentTables | ContentResult).String(); got != "tables and the JSON result" {
		t.Errorf("String = %q", got)
	}
}

// An output without a page is an error in html, not an empty page; an
// unknown format is an error naming the formats there are.
func TestWriteErrors(t *testing.T) {
	o := fullOutput()
	o.HTML = nil
	var b bytes.Buffer
	if err := Write(&b, FormatHTML, 0, o); err == nil || err.Error() != "the output holds no HTML page" || b.Len() != 0 {
		t.Errorf("html without a page: %v, %q", err, b.String())
	}
	if err := Write(&b, "yaml", 0, o); err == nil || err.Error() != `unknown format "yaml" (want table, markdown, csv, json, gobench or html)` {
		t.Errorf("yaml: %v", err)
	}
}
