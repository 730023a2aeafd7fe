package report

import (
	"errors"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/notesbench/notesbench/results"
)

// AuditPlot writes one of an audit's bar charts in format (svg or png): a
// group of bars per run, a bar per series in it, a legend naming the
// series. Its y axis counts, so it is ticked at whole numbers.
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
	for i, s := range p.Series {
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return err
		}
		bars.Offset = width * vg.Length(float64(i)-float64(len(p.Series)-1)/2)
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		pl.Add(bars)
		pl.Legend.Add(s.Label, bars)
	}
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.XOffs = vg.Points(8)
	pl.NominalX(p.Runs...)
	pl.X.Min, pl.X.Max = -0.6, float64(len(p.Runs))-0.4
	top := 0.0
	for _, s := range p.Series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	// Room above the bars for the legend, a line per series; an axis of
	// zeros still shows 0–1.
	pl.Y.Max = max(1, top) * (1.15 + 0.1*float64(len(p.Series)))
	return writePlot(w, pl, format)
}
