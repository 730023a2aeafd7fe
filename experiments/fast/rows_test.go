package fast

import (
	"slices"
	"testing"
)

func TestRowFigureOf(t *testing.T) {
	if v, ok := (Row{Lost: 35, RunsWithLoss: 5}).FigureOf("runs_with_loss"); !ok || !slices.Equal(v.Nums, []float64{5}) {
		t.Errorf("runs_with_loss: %v %v", v, ok)
	}
}
