package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 figures"}, {1, "1 figure"}, {2, "2 figures"}, {-1, "-1 figure"}, {1000, "1,000 figures"}, {-1234, "-1,234 figures"}} {
		if got := Count(tc.n, "figure"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
