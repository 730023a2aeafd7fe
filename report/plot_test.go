package report

import (
	"bytes"
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
