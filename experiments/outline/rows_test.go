package outline

import (
	"slices"
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
)

func TestOutlineRowJSON(t *testing.T) {
	want := []string{"approach", "writes", "request_bytes", "conflicts_per_deck", "expected_conflicts"}
	if got := simtest.ObjectKeysInOrder(t, Row{}); !slices.Equal(got, want) {
		t.Errorf("Row keys %v, want %v", got, want)
	}
}

func TestOutlineRowKeysMatchPublished(t *testing.T) {
	exp := simtest.MustLookup(t, "outline")
	for _, a := range []string{ApproachOutline, ApproachSlideAdd} {
		if p, ok := exp.Match(results.RowKey(exp, Row{Approach: a})); !ok || p.Key["approach"] != a {
			t.Errorf("approach %s: matched published row %v (found %v)", a, p.Key, ok)
		}
	}
}

func TestRowFigureOf(t *testing.T) {
	if v, ok := (Row{Writes: 13, RequestBytes: 4197}).FigureOf("request_bytes"); !ok || !slices.Equal(v.Nums, []float64{4197}) {
		t.Errorf("request_bytes: %v %v, want [4197]", v, ok)
	}
}
