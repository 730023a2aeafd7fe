package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

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
	p, err := verdictPlot(title, v)
	if err != nil {
		return err
	}
	return writePlot(w, p, format)
}

// verdictPlot is the plot VerdictPlot draws. Its y axis counts replications
// and its x axis, when every sample is a whole number (lines, conflicts),
// holds whole numbers: both are ticked at whole numbers only.
func verdictPlot(title string, v results.Verdict) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = v.Figure
	p.Y.Label.Text = "replications"
	xs := v.Samples()
	h, err := plotter.NewHist(plotter.Values(xs), bins(len(xs)))
	if err != nil {
		return nil, err
	}
	p.Y.Tick.Marker = wholeTicks{}
	if slices.IndexFunc(xs, func(x float64) bool { return x != math.Trunc(x) }) < 0 {
		p.X.Tick.Marker = wholeTicks{}
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
			return nil, err
		}
	}
	for _, x := range []float64{v.OursLow, v.OursHigh} {
		if err := vline(p, x, top, rangeColor, true); err != nil {
			return nil, err
		}
	}
	p.Legend.Add(fmt.Sprintf("published %s", v.Published))
	p.X.Min = min(p.X.Min, lo)
	p.X.Max = max(p.X.Max, hi)
	pad := (p.X.Max - p.X.Min) * 0.04
	p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	return p, nil
}

// wholeTicks ticks an axis of whole numbers: at whole numbers only, at the
// step of plot's default ticks when it is whole and at the nearest finer
// whole step of 1, 2 or 5 times a power of ten when it is not, labelled
// without decimals ("250", not "250.00"; no "2.50" replications).
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 0.0
	var labelled []float64
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Label != "" {
			labelled = append(labelled, t.Value)
		}
	}
	if len(labelled) >= 2 {
		step = labelled[1] - labelled[0]
	}
	step = wholeStep(step)
	var out []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi; i++ {
		v := i*step + 0 // +0: never "-0"
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return out
}

// wholeStep returns step when it is a whole number of at least 1, else the
// greatest of 1, 2 or 5 times a power of ten below it, at least 1.
func wholeStep(step float64) float64 {
	switch {
	case step <= 1 || math.IsNaN(step) || math.IsInf(step, 0):
		return 1
	case step == math.Trunc(step):
		return step
	}
	mag := math.Pow(10, math.Floor(math.Log10(step)))
	for _, m := range []float64{5, 2, 1} {
		if m*mag <= step {
			return m * mag
		}
	}
	return 1
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
