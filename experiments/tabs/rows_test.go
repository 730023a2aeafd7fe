package tabs

import (
	"slices"
	"testing"
)

func TestRowFigureOf(t *testing.T) {
	if v, ok := (Row{ConflictsHuman: 69, WritesHuman: 300}).FigureOf("conflicts_human"); !ok || !slices.Equal(v.Nums, []float64{69}) {
		t.Errorf("conflicts_human: %v %v", v, ok)
	}
}
