package report

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// Plot is one picture of a reproduction: a file name without extension, a
// title, and what draws it in one of PlotFormats.
type Plot struct {
	Name  string
	Title string
	Draw  func(w io.Writer, format string) error
}

// ReproductionPlots returns the pictures of a reproduction: for every judged
// figure that varies, a histogram of our replications with the published value
// marked, then bench's per-write latency by guard (when latency is given).
func ReproductionPlots(reports []results.Report, latency []LatencySeries) []Plot {
	var out []Plot
	for _, rep := range reports {
		for _, v := range rep.Verdicts {
			if !Plottable(v) {
				continue
			}
			title := fmt.Sprintf("%s · %s · %s", rep.Experiment, v.Row, v.Figure)
			name := rep.Experiment + "-" + v.Row + "-" + v.Figure
			if v.Seed > 0 {
				title += fmt.Sprintf(" (published seed %d)", v.Seed)
				name += fmt.Sprintf("-seed%d", v.Seed)
			}
			out = append(out, Plot{Name: slug(name), Title: title, Draw: func(w io.Writer, format string) error {
				return VerdictPlot(w, format, title, v, results.DefaultMass)
			}})
		}
	}
	if len(latency) > 0 {
		title := "bench · µs per edit_note_tab write, by guard"
		out = append(out, Plot{Name: "bench-latency", Title: title, Draw: func(w io.Writer, format string) error {
			return LatencyPlot(w, format, title, latency)
		}})
	}
	return out
}

// slug turns a title into a file name: lower case letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// ReproducedTitle is the first line of every REPRODUCED.md notesbench writes,
// by which it knows one of its own before overwriting it.
const ReproducedTitle = "# notesbench: the published figures, reproduced"

// WriteReproducedMD writes REPRODUCED.md: how the reproduction was made, its
// summary, the plots (SVG files under plotDir, relative to the markdown), then
// every table. Its first line is ReproducedTitle.
func WriteReproducedMD(w io.Writer, r results.Reproduction, tables []Table, plots []Plot, plotDir string) error {
	m := r.Machine
	summary := r.Summary()
	head := fmt.Sprintf(ReproducedTitle+`

Made by `+"`%s`"+` (notesbench %s) with %s behind the verdicts.
Machine: %s/%s, %d CPUs%s; %s; SQLite %s through %s.
The race, tabs and fast tables below ran on the virtual clock, so their counts are the
same on any machine; the published figures came from %s.

**%s.**

`, r.Command, r.Version, Count(r.Replications, "replication"), m.GOOS, m.GOARCH, m.CPUs, cpuSuffix(m.CPU), m.Go, m.SQLite, m.SQLiteDriver,
		m.PublishedSetup, strings.ToUpper(summary[:1])+summary[1:])
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	if t := r.Timing; t != nil {
		line := t.Summary()
		if _, err := fmt.Fprintf(w, "%s. The ablation below shows which of its two rules moves which figure.\n\n", strings.ToUpper(line[:1])+line[1:]); err != nil {
			return err
		}
	}
	if a := r.Against; a != nil {
		if _, err := fmt.Fprintf(w, "%s; the last table lists them.\n\n", AgreementLine(*a)); err != nil {
			return err
		}
	}
	if len(plots) > 0 {
		if _, err := io.WriteString(w, "## Plots\n\nOur replications of each judged figure, the published value in red and the interval one new run of ours falls in dashed (its method and coverage are in the verdict tables); then bench's per-write latency.\n\n"); err != nil {
			return err
		}
		for _, p := range plots {
			if _, err := fmt.Fprintf(w, "![%s](%s)\n\n", p.Title, path.Join(plotDir, p.Name+".svg")); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "## Tables\n\n"); err != nil {
			return err
		}
	}
	return Render(w, FormatMarkdown, tables...)
}

// ReproductionOutput is a reproduction as a command prints it: its record as
// the result (json); in table and markdown, its tables, then under a blank
// line its summary, the timing profile's and the agreement with another
// run's verdicts (when it was set beside one), a line each, wrapped to the
// terminal in table format.
func ReproductionOutput(r results.Reproduction, tables []Table) Output {
	return Output{Result: r, Text: func(w io.Writer, f Format, width int) error {
		if err := RenderWidth(w, f, width, tables...); err != nil {
			return err
		}
		lines := []string{"\n" + fit(f, r.Summary(), width)}
		if r.Timing != nil {
			line := r.Timing.Summary()
			lines = append(lines, fit(f, strings.ToUpper(line[:1])+line[1:], width))
		}
		if r.Against != nil {
			lines = append(lines, fit(f, AgreementLine(*r.Against)+".", width))
		}
		for _, l := range lines {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		return nil
	}}
}

// fit wraps a line of text to width in the table format, the terminal's;
// markdown keeps it whole.
func fit(f Format, text string, width int) string {
	if f == FormatTable {
		return WrapText(text, width)
	}
	return text
}

func cpuSuffix(cpu string) string {
	if cpu == "" {
		return ""
	}
	return " (" + cpu + ")"
}

// AgreementLine says in one sentence how the verdicts of a reproduction
// stand against another's: "Against `notesbench reproduce --quick
// --replications 20` (20 replications), 129 of 132 verdicts alike, 27 of 27
// under the other timing model: 3 judged apart".
func AgreementLine(a results.Agreement) string {
	s := fmt.Sprintf("Against `%s` (%s), %d of %s alike", a.Command, Count(a.Replications, "replication"), a.Alike, Count(a.Judged, "verdict"))
	if a.TimingJudged > 0 {
		s += fmt.Sprintf(", %d of %d under the other timing model", a.TimingAlike, a.TimingJudged)
	}
	return s + fmt.Sprintf(": %d judged apart", len(a.Apart))
}

// AgreementTable lists the published figures two reproductions judged apart:
// for each, the published value, then for each reproduction the interval in
// which one new run of ours falls, its coverage and method, and the verdict.
// ours and other name the two reproductions in the header.
func AgreementTable(a results.Agreement, ours, other string) Table {
	t := Table{
		Title: "Verdicts judged apart by " + ours + " and " + other,
		Keys:  3,
		Header: []string{"Experiment", "Row", "Figure", "Published",
			ours + ": interval", ours + ": coverage, method", ours + ": verdict",
			other + ": interval", other + ": coverage, method", other + ": verdict"},
		Notes: []string{AgreementLine(a),
			"a figure is judged apart when the published value lies inside one interval and outside the other: each is drawn from its own replications, the one from fewer wider for its t quantile and less sure of its spread, and at less coverage when its method cannot reach the coverage asked with them"},
	}
	for _, p := range a.Apart {
		exp := p.Experiment
		if p.Model != "" {
			exp += " (" + p.Model + ")"
		}
		cells := func(v results.Verdict) []string {
			return []string{results.RoundRange(v.OursLow, v.OursHigh), results.CoverageLabel(v.Coverage) + " " + string(v.Method), outcomeText(v.Outcome, v.Ratio)}
		}
		row := append([]string{exp, p.Ours.Row, figureLabel(p.Ours.Figure, p.Ours.Seed), Published(p.Ours.Published, nil)}, cells(p.Ours)...)
		t.Rows = append(t.Rows, append(row, cells(p.Other)...))
	}
	return t
}
