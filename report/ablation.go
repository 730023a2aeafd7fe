package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// differsMark follows an ablation cell whose model puts the published value
// outside the interval in which one new run of the model falls.
const differsMark = " ✗"

// TimingVerdictTable returns the verdicts of several models of one
// experiment side by side, one row per published figure: the published value,
// then for each model our mean, the interval in which one new run of the
// model falls, its coverage and the outcome. coverage is the coverage the
// verdicts asked. notes go under the table after one summary line per model.
func TimingVerdictTable(title string, a results.Ablation, coverage float64, notes ...string) Table {
	t := Table{Title: title, Header: []string{"Row", "Figure", "Published"}}
	for _, m := range a.Models {
		t.Header = append(t.Header, m.Name+": ours (mean)", m.Name+": ours (prediction interval)", m.Name+": coverage", m.Name+": verdict")
	}
	for _, f := range a.Figures {
		row := []string{f.Row, figureLabel(f.Figure, f.Seed), Published(f.Published, nil)}
		for _, c := range f.Cells {
			mean, span, cov := "n/a", "n/a", "n/a"
			if c.Outcome != results.NoData {
				mean, span, cov = Num(c.Mean), results.RoundRange(c.Low, c.High), results.CoverageLabel(c.Coverage)
			}
			row = append(row, mean, span, cov, outcomeText(c.Outcome, c.Ratio))
		}
		t.Rows = append(t.Rows, row)
	}
	for _, m := range a.Models {
		t.Notes = append(t.Notes, fmt.Sprintf("%s: %d of %d published figures consistent with ours (%s replications; %s)",
			m.Name, m.Consistent, m.Judged, Int(int64(m.Replications)), modelCoverage(m, coverage)))
	}
	t.Notes = append(t.Notes, notes...)
	return t
}

// modelCoverage says what a model's verdicts judged against and at what
// coverage, as coverageClause does for a list of verdicts.
func modelCoverage(m results.AblationModel, coverage float64) string {
	s := "each against the interval one new run of ours falls in, " + results.CoverageLabel(coverage) + " asked"
	if m.Short > 0 {
		s += fmt.Sprintf("; %d at less, down to %s", m.Short, results.CoverageLabel(m.Least))
	}
	return s
}

// AblationTable returns what each model of an ablation does to each published
// figure that some model moves: the published value, then per model our mean
// and the interval in which one new run of the model falls, marked when the
// published value lies outside it; a last row counts each model's consistent
// figures. coverage is the coverage the verdicts asked. notes go under the
// table after the legend.
func AblationTable(title string, a results.Ablation, coverage float64, notes ...string) Table {
	t := Table{Title: title, Header: []string{"Row", "Figure", "Published"}}
	for _, m := range a.Models {
		t.Header = append(t.Header, m.Name)
	}
	notable := a.Notable()
	for _, f := range notable {
		row := []string{f.Row, figureLabel(f.Figure, f.Seed), Published(f.Published, nil)}
		for _, c := range f.Cells {
			cell := "n/a"
			if c.Outcome != results.NoData {
				cell = Num(c.Mean) + " (" + results.RoundRange(c.Low, c.High) + ")"
			}
			if c.Outcome == results.Differs {
				cell += differsMark
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	count := []string{"all", "figures consistent", ""}
	for _, m := range a.Models {
		count = append(count, Int(int64(m.Consistent))+" of "+Int(int64(m.Judged)))
	}
	t.Rows = append(t.Rows, count)
	legend := fmt.Sprintf("each cell: our mean (the interval in which one new run of the model falls, %s asked) over the model's replications;%s the published value lies outside it; a timing is compared as a ratio only and never marked",
		results.CoverageLabel(coverage), differsMark)
	var short []string
	for _, m := range a.Models {
		if m.Short > 0 {
			short = append(short, fmt.Sprintf("%s %d (down to %s)", m.Name, m.Short, results.CoverageLabel(m.Least)))
		}
	}
	if len(short) > 0 {
		legend += "; judged at less for want of replications: " + strings.Join(short, ", ")
	}
	t.Notes = append(t.Notes, legend)
	if left := len(a.Figures) - len(notable); left > 0 {
		if left == 1 {
			t.Notes = append(t.Notes, fmt.Sprintf("1 further figure is one constant under every model, never judged as differing (%s), and is left out; the last row counts it", constants(a)))
		} else {
			t.Notes = append(t.Notes, fmt.Sprintf("%d further figures are one constant under every model, never judged as differing (%s), and are left out; the last row counts them", left, constants(a)))
		}
	}
	t.Notes = append(t.Notes, notes...)
	return t
}

// constants names the figures of a that are not notable, briefly.
func constants(a results.Ablation) string {
	notable := map[string]bool{}
	for _, f := range a.Notable() {
		notable[f.Row+"\x00"+figureLabel(f.Figure, f.Seed)] = true
	}
	var out []string
	for _, f := range a.Figures {
		if !notable[f.Row+"\x00"+figureLabel(f.Figure, f.Seed)] {
			out = append(out, f.Row+" "+figureLabel(f.Figure, f.Seed)+" "+Num(f.Cells[0].Mean))
		}
	}
	return strings.Join(out, ", ")
}

// figureLabel names a figure in a row, with its seed for a per-seed figure
// (seed above 0): "calls_sent seed 2".
func figureLabel(figure string, seed int) string {
	if seed > 0 {
		return figure + " seed " + strconv.Itoa(seed)
	}
	return figure
}

// outcomeText writes an outcome as every verdict and ablation table shows it:
// its name, or "ratio 0.96×" for a timing.
func outcomeText(o results.Conclusion, ratio float64) string {
	if o == results.RatioOnly {
		return "ratio " + Fixed(ratio, 2) + "×"
	}
	return string(o)
}
