package refs

import (
	"slices"
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
)

func TestRefsRowJSON(t *testing.T) {
	want := []string{"k", "ref", "correct", "wrong", "not_found", "trials", "passed_version_check", "writes", "refused"}
	if got := simtest.ObjectKeysInOrder(t, Row{}); !slices.Equal(got, want) {
		t.Errorf("Row keys %v, want %v", got, want)
	}
}

func TestRefsRowKeysMatchPublished(t *testing.T) {
	exp := simtest.MustLookup(t, "refs")
	for _, k := range []int{2, 5} {
		for _, ref := range Kinds() {
			row := Row{K: k, Ref: ref}
			p, ok := exp.Match(results.RowKey(exp, row))
			if !ok || p.Key["k"] != row.KeyOf("k") || p.Key["ref"] != ref {
				t.Errorf("k %d %s: matched published row %v (found %v)", k, ref, p.Key, ok)
			}
		}
	}
	if _, ok := exp.Match(results.RowKey(exp, Row{K: 3, Ref: RefID})); ok {
		t.Error("k 3 matched a published row; only 2 and 5 were published")
	}
}

func TestRowFigureOf(t *testing.T) {
	if v, ok := (Row{Correct: 0.5, NotFound: 0.25}).FigureOf("not_found"); !ok || !slices.Equal(v.Nums, []float64{0.25}) {
		t.Errorf("not_found: %v %v, want [0.25]", v, ok)
	}
	if k := (Row{K: 5}).KeyOf("k"); k != "5" {
		t.Errorf("k: %q", k)
	}
}
