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
		{raceRow{Lost: 3, ConflictsClaude: 1}, "lost", []float64{3}},
		{raceRow{WallS: 1.25}, "wall_s", []float64{1.25}},
	} {
		v, ok := tc.row.FigureOf(tc.figure)
		if !ok || !slices.Equal(v.Nums, tc.want) {
			t.Errorf("%T.%s: %v %v, want %v", tc.row, tc.figure, v, ok, tc.want)
		}
	}
	if _, ok := (raceRow{}).FigureOf("nope"); ok {
		t.Error("an unknown figure was found")
	}
}
