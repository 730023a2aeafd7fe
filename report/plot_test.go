package report

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/results"
)

func TestVerdictPlot(t *testing.T) {
	samples := []float64{180, 185, 190, 190, 195, 200, 188, 192}
	v := results.Judge("conflicts_claude", "note reapply", samples, results.PointFigure(219), 0.99)
	if !Plottable(v) {
		t.Fatal("a varying judged figure is not plottable")
	}
	for _, format := range PlotFormats {
		var a, b bytes.Buffer
		if err := VerdictPlot(&a, format, "race · note reapply · conflicts_claude", v, 0.99); err != nil {
			t.Fatal(err)
		}
		if err := VerdictPlot(&b, format, "race · note reapply · conflicts_claude", v, 0.99); err != nil {
			t.Fatal(err)
		}
		if a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: empty or not deterministic (%d bytes)", format, a.Len())
		}
		if format == "svg" && !strings.Contains(a.String(), "published 219") {
			t.Fatal("the svg does not mark the published value")
		}
	}
	constant := results.Judge("max_tries", "note reapply", []float64{2, 2, 2}, results.PointFigure(2), 0.99)
	if Plottable(constant) {
		t.Fatal("a constant figure is plottable")
	}
	if Plottable(results.JudgeRatio("wall_s", "none", samples, results.PointFigure(10), 0.99)) {
		t.Fatal("a ratio is plottable")
	}
}

func TestLatencyPlot(t *testing.T) {
	var buf bytes.Buffer
	err := LatencyPlot(&buf, "svg", "bench", []LatencySeries{
		{Label: "guard none", SamplesUS: []float64{20, 21, 22, 25, 400}},
		{Label: "guard note", SamplesUS: []float64{21, 22, 23, 26, 900}},
	})
	if err != nil || !strings.Contains(buf.String(), "guard note") {
		t.Fatalf("err %v, %d bytes", err, buf.Len())
	}
}

// tickLabels returns the numbers an SVG plot writes: its tick labels.
func tickLabels(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`>([^<>]*)</text>`).FindAllStringSubmatch(svg, -1) {
		if _, err := strconv.ParseFloat(m[1], 64); err == nil {
			out = append(out, m[1])
		}
	}
	return out
}

// Axes of whole numbers are ticked at whole numbers, labelled as such: the
// replications a bin counts, and a figure whose samples are all whole (lines
// lost). Plots put 2.50 replications and 250.00 lines on their axes. A figure
// of fractions keeps its decimals.
func TestPlotWholeTicks(t *testing.T) {
	for _, tc := range []struct {
		samples   []float64
		published float64
		whole     bool
	}{
		{[]float64{1000, 1001, 1002, 1003, 1001}, 250, true},
		{[]float64{3, 4}, 3, true},
		{[]float64{250, 251, 250}, 250, true},
		{[]float64{0, 1, 1, 2}, 250, true},
		{[]float64{1.25, 1.5, 1.75, 1.5}, 1.6, false},
	} {
		v := results.Judge("lost", "none", tc.samples, results.PointFigure(tc.published), 0.99)
		var svg bytes.Buffer
		if err := VerdictPlot(&svg, "svg", "race · none · lost", v, 0.99); err != nil {
			t.Fatal(err)
		}
		labels := tickLabels(svg.String())
		fractions := slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(l, ".") || l == "-0" })
		if len(labels) < 3 || fractions == tc.whole {
			t.Errorf("%v: tick labels %v", tc.samples, labels)
		}
	}
	for lo, want := range map[[2]float64]string{{-0.3, 2.4}: "0 1 2", {-9, 251}: "0 100 200", {0, 10.5}: "0 5 10"} {
		var got []string
		for _, tick := range (wholeTicks{}).Ticks(lo[0], lo[1]) {
			got = append(got, tick.Label)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("ticks of %v: %v, want %s", lo, got, want)
		}
	}
}
