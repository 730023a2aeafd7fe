package report

import (
	"fmt"
	"image/color"
	"io"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/notesbench/notesbench/results"
)

// PlotFormats are the file formats plots are written in.
var PlotFormats = []string{"svg", "png"}

var (
	publishedColor = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	rangeColor     = color.RGBA{R: 90, G: 90, B: 90, A: 255}
)

// Plottable reports whether a verdict has a spread worth a histogram: judged
// samples that are not all one value.
func Plottable(v results.Verdict) bool {
	xs := v.Samples()
	if (v.Outcome != results.Consistent && v.Outcome != results.Differs) || len(xs) < 2 {
		return false
	}
	return slices.Min(xs) != slices.Max(xs)
}

// VerdictPlot writes a histogram of our samples of one figure with the published
// value marked in red (a range as two lines), and the interval the verdict
// judged it against (the interval in which one new run of ours falls) as grey
// dashed lines, in format (svg or png). coverage is the coverage the verdict
// asked; the plot draws the verdict's own.
func VerdictPlot(w io.Writer, format, title string, v results.Verdict, coverage float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = v.Figure
	p.Y.Label.Text = "replications"
	xs := v.Samples()
	h, err := plotter.NewHist(plotter.Values(xs), bins(len(xs)))
	if err != nil {
		return err
	}
	h.FillColor = color.RGBA{R: 120, G: 150, B: 200, A: 255}
	p.Add(h)
	top := 0.0
	for _, b := range h.Bins {
		top = max(top, b.Weight)
	}
	lo, hi := v.Published.Range()
	marks := []float64{lo}
	if hi != lo {
		marks = append(marks, hi)
	}
	for _, x := range marks {
		if err := vline(p, x, top, publishedColor, false); err != nil {
			return err
		}
	}
	for _, x := range []float64{v.OursLow, v.OursHigh} {
		if err := vline(p, x, top, rangeColor, true); err != nil {
			return err
		}
	}
	p.Legend.Add(fmt.Sprintf("published %s", v.Published))
	p.X.Min = min(p.X.Min, lo)
	p.X.Max = max(p.X.Max, hi)
	pad := (p.X.Max - p.X.Min) * 0.04
	p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	return writePlot(w, p, format)
}

func vline(p *plot.Plot, x, top float64, c color.Color, dashed bool) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top * 1.05}})
	if err != nil {
		return err
	}
	l.Color = c
	l.Width = vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	return nil
}

// bins chooses a histogram bin count for n samples: about √n, at least 5.
func bins(n int) int {
	b := 5
	for b*b < n {
		b++
	}
	return b
}

// LatencySeries is one guard's per-write latencies, in microseconds.
type LatencySeries struct {
	Label     string
	SamplesUS []float64
}

// LatencyPlot writes box plots of per-write latency, one per series, on a
// logarithmic axis (the tail is three orders of magnitude above the median).
func LatencyPlot(w io.Writer, format, title string, series []LatencySeries) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "µs per write (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{}
	var names []string
	for i, s := range series {
		vals := make(plotter.Values, 0, len(s.SamplesUS))
		for _, x := range s.SamplesUS {
			if x > 0 {
				vals = append(vals, x)
			}
		}
		b, err := plotter.NewBoxPlot(vg.Points(30), float64(i), vals)
		if err != nil {
			return err
		}
		p.Add(b)
		names = append(names, s.Label)
	}
	p.NominalX(names...)
	return writePlot(w, p, format)
}

func writePlot(w io.Writer, p *plot.Plot, format string) error {
	wt, err := p.WriterTo(6*vg.Inch, 3.5*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
