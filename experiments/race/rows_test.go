package race

import (
	"slices"
	"testing"
)

// An accessor reads the field it names.
func TestRowFigureOf(t *testing.T) {
	for _, tc := range []struct {
		row    Row
		figure string
		want   []float64
	}{
		{Row{Lost: 3, LostClaude: 1, LostHuman: 2, MeanTriesHuman: 1.25}, "lost_human", []float64{2}},
		{Row{MeanTriesHuman: 1.25}, "mean_tries_human", []float64{1.25}},
	} {
		if v, ok := tc.row.FigureOf(tc.figure); !ok || !slices.Equal(v.Nums, tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.figure, v, ok, tc.want)
		}
	}
}
