package results

import (
	"slices"
	"testing"
)

// An accessor reads the field it names.
func TestAccessorsReadTheirFields(t *testing.T) {
	for _, tc := range []struct {
		row    Row
		figure string
		want   []float64
	}{
		{RaceRow{Lost: 3, LostClaude: 1, LostHuman: 2, MeanTriesHuman: 1.25}, "lost_human", []float64{2}},
		{RaceRow{MeanTriesHuman: 1.25}, "mean_tries_human", []float64{1.25}},
		{TabsRow{ConflictsHuman: 69, WritesHuman: 300}, "conflicts_human", []float64{69}},
		{FastRow{Lost: 35, RunsWithLoss: 5}, "runs_with_loss", []float64{5}},
	} {
		v, ok := tc.row.FigureOf(tc.figure)
		if !ok || !slices.Equal(v.Nums, tc.want) {
			t.Errorf("%T.%s: %v %v, want %v", tc.row, tc.figure, v, ok, tc.want)
		}
	}
	if _, ok := (RaceRow{}).FigureOf("nope"); ok {
		t.Error("an unknown figure was found")
	}
}
