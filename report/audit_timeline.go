package report

import (
	"fmt"
	"html"
	"html/template"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// proofTimeline draws a proof's operations as an SVG timeline: a lane per
// client session, each call a bar from when it was made to when it
// returned (green ok, red failed, grey outcome unknown), labelled with
// its place in the proof, and each fault a shaded band across the lanes.
// The page shows it inline; it loads nothing.
func proofTimeline(p *results.AuditProof) template.HTML {
	if len(p.Ops) == 0 {
		return ""
	}
	const (
		width, left, right, laneH, top = 760.0, 150.0, 20.0, 34.0, 24.0
	)
	type lane struct {
		editor  string
		session int
	}
	var lanes []lane
	from, to := p.Ops[0].InvokeNS, p.Ops[0].ReturnNS
	for _, op := range p.Ops {
		l := lane{op.Editor, op.Session}
		if !slices.Contains(lanes, l) {
			lanes = append(lanes, l)
		}
		from, to = min(from, op.InvokeNS), max(to, op.ReturnNS)
	}
	for _, f := range p.Faults {
		from, to = min(from, f.StartNS), max(to, f.EndNS)
	}
	span := float64(max(to-from, 1))
	x := func(ns int64) float64 { return left + (width-left-right)*float64(ns-from)/span }
	height := top + laneH*float64(len(lanes)) + 28
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="the operations of the proof, on the run's clock">`, width, height, width, height)
	for _, f := range p.Faults {
		x0, x1 := x(f.StartNS), x(f.EndNS)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="#f4c7c3" opacity="0.7"><title>%s</title></rect>`,
			x0, top-14, max(x1-x0, 2), laneH*float64(len(lanes))+14, html.EscapeString(f.Kind+" "+f.Detail))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="10" fill="#a33">%s</text>`, x0+2, top-4, html.EscapeString(f.Kind))
	}
	for i, l := range lanes {
		y := top + laneH*float64(i)
		fmt.Fprintf(&b, `<text x="4" y="%.0f" font-size="12">%s</text>`, y+laneH/2+4, html.EscapeString(fmt.Sprintf("%s#%d", l.editor, l.session)))
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#ddd"/>`, left, y+laneH-2, width-right, y+laneH-2)
	}
	for k, op := range p.Ops {
		i := slices.Index(lanes, lane{op.Editor, op.Session})
		y := top + laneH*float64(i) + 6
		x0, x1 := x(op.InvokeNS), x(op.ReturnNS)
		color := map[string]string{"ok": "#8fd18f", "fail": "#e59090"}[op.Outcome]
		if color == "" {
			color = "#bbb"
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="%s" stroke="#555"><title>%s</title></rect>`,
			x0, y, max(x1-x0, 3), laneH-14, color, html.EscapeString(op.What))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="11">%d</text>`, x0+2, y+laneH-17, k+1)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#666">%s s</text>`, left, height-8, Fixed(float64(from)/1e9, 3))
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#666" text-anchor="end">%s s</text>`, width-right, height-8, Fixed(float64(to)/1e9, 3))
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built here, every text in it escaped
}
