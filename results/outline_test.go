package results

import (
	"slices"
	"testing"
)

func TestOutlineRowJSON(t *testing.T) {
	want := []string{"approach", "writes", "request_bytes", "conflicts_per_deck", "expected_conflicts"}
	if got := objectKeysInOrder(t, OutlineRow{}); !slices.Equal(got, want) {
		t.Errorf("OutlineRow keys %v, want %v", got, want)
	}
}

func TestOutlineRowKeysMatchPublished(t *testing.T) {
	exp := mustLookup(t, "outline")
	for _, a := range []string{ApproachOutline, ApproachSlideAdd} {
		if p, ok := exp.Match(RowKey(exp, OutlineRow{Approach: a})); !ok || p.Key["approach"] != a {
			t.Errorf("approach %s: matched published row %v (found %v)", a, p.Key, ok)
		}
	}
}
