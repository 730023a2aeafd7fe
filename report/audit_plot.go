package report

import (
	"errors"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/notesbench/notesbench/results"
)

// AuditPlot writes one of an audit's bar charts in format (svg or png): a
// group of bars per run, a bar per series in it with its value above it,
// and, beneath the plot, a legend naming the series. Its y axis counts, so
// it is ticked at whole numbers.
func AuditPlot(w io.Writer, format string, p results.AuditPlot) error {
	if len(p.Runs) == 0 || len(p.Series) == 0 {
		return errors.New("plot " + p.Name + " has no bars")
	}
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.Y.Label.Text = p.YLabel
	pl.Y.Min = 0
	pl.Y.Tick.Marker = wholeTicks{}
	groupWidth := vg.Points(300 / float64(len(p.Runs)))
	width := min(groupWidth*0.8/vg.Length(len(p.Series)), vg.Points(24))
	legend := plot.NewLegend()
	for i, s := range p.Series {
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return err
		}
		bars.Offset = width * vg.Length(float64(i)-float64(len(p.Series)-1)/2)
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		pl.Add(bars)
		legend.Add(s.Label, bars)
		// Each bar's value above it, 0 too: a series at 0 is a series
		// that ran and found nothing, not one missing.
		var xy plotter.XYLabels
		for j, v := range s.Values {
			xy.XYs = append(xy.XYs, plotter.XY{X: float64(j), Y: v})
			xy.Labels = append(xy.Labels, strconv.FormatFloat(v, 'f', -1, 64))
		}
		labels, err := plotter.NewLabels(xy)
		if err != nil {
			return err
		}
		for k := range labels.TextStyle {
			labels.TextStyle[k].XAlign = draw.XCenter
		}
		labels.Offset = vg.Point{X: bars.Offset, Y: vg.Points(2)}
		pl.Add(labels)
	}
	pl.NominalX(p.Runs...)
	pl.X.Min, pl.X.Max = -0.6, float64(len(p.Runs))-0.4
	top := 0.0
	for _, s := range p.Series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	// Room above the bars for their values; an axis of zeros still shows
	// 0–1.
	pl.Y.Max = max(1, top) * 1.12
	return writePlotLegend(w, pl, legend, len(p.Series), format)
}

// writePlotLegend writes pl in format with its legend beneath the plot
// area, a line per series, never over the bars.
func writePlotLegend(w io.Writer, pl *plot.Plot, legend plot.Legend, series int, format string) error {
	const width, height = 6 * vg.Inch, 3.5 * vg.Inch
	legendH := vg.Points(14*float64(series) + 10)
	c, err := draw.NewFormattedCanvas(width, height+legendH, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	pl.Draw(draw.Crop(dc, 0, 0, legendH, 0))
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = vg.Points(48), -vg.Points(4)
	legend.Draw(draw.Crop(dc, 0, 0, 0, -height))
	_, err = c.WriteTo(w)
	return err
}
