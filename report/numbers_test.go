package report

import (
	"math"
	"testing"

	"github.com/notesbench/notesbench/results"
)

func TestInt(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 5400: "5,400", 20000: "20,000", 1234567: "1,234,567",
		-5400: "-5,400", -999: "-999", math.MinInt64: "-9,223,372,036,854,775,808",
	} {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFixed(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		d    int
		want string
	}{
		{1.4142, 2, "1.41"}, {1.415, 0, "1"}, {5237.5, 1, "5,237.5"}, {0.07, 3, "0.070"},
		{-1234.5, 1, "-1,234.5"}, {-0.001, 2, "0.00"}, {10.13, 2, "10.13"},
		{math.NaN(), 2, "n/a"}, {math.Inf(-1), 1, "n/a"},
	} {
		if got := Fixed(tc.f, tc.d); got != tc.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", tc.f, tc.d, got, tc.want)
		}
	}
}

func TestPctOfNum(t *testing.T) {
	for f, want := range map[float64]string{0.43: "43.0 %", 0.0068: "0.7 %", 1: "100.0 %", 0: "0.0 %"} {
		if got := Pct(f); got != want {
			t.Errorf("Pct(%v) = %q, want %q", f, got, want)
		}
	}
	if got := Pct(math.NaN()); got != "n/a" {
		t.Errorf("Pct(NaN) = %q", got)
	}
	for _, tc := range []struct {
		n, total int64
		want     string
	}{
		{130, 300, "130 of 300 (43 %)"}, // 43.33… rounds down
		{87, 300, "87 of 300 (29 %)"},
		{725, 3038, "725 of 3,038 (24 %)"}, // 23.86… rounds up
		{5, 5, "5 of 5 (100 %)"},
		{36, 20000, "36 of 20,000 (0.18 %)"}, // below 1 %: two decimals
		{0, 20000, "0 of 20,000 (0 %)"},
		{0, 0, "0 of 0"},
	} {
		if got := Of(tc.n, tc.total); got != tc.want {
			t.Errorf("Of(%d, %d) = %q, want %q", tc.n, tc.total, got, tc.want)
		}
	}
	for f, want := range map[float64]string{
		300: "300", 5237: "5,237", 1.44: "1.44", 1.4449: "1.445", 0.0693: "0.069", 0.0004: "0.0004",
		-2.5: "-2.5", 10.1299999: "10.13", math.NaN(): "n/a",
	} {
		if got := Num(f); got != want {
			t.Errorf("Num(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestPublished(t *testing.T) {
	refs, _ := results.Lookup("refs")
	r, _ := refs.Match(map[string]string{"k": "2", "ref": "label"})
	for _, tc := range []struct {
		f    results.Figure
		num  func(float64) string
		want string
	}{
		{r.Figures["not_found"], nil, "0.123"},  // as written
		{r.Figures["not_found"], Pct, "12.3 %"}, // as the write-up's table shows it
		{results.RangeFigure(420, 1330), Num, "420–1,330"},
		{results.SeedsFigure(71, 61, 63), nil, "71 / 61 / 63"},
		{results.SeedsFigure(0.5, 1), Pct, "50.0 % / 100.0 %"},
		{results.TextFigure("ok"), Pct, "ok"},
		{results.Figure{}, nil, NotPublished},
	} {
		if got := Published(tc.f, tc.num); got != tc.want {
			t.Errorf("Published(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
	if got := PublishedHeader("Lost"); got != "Lost (published)" {
		t.Errorf("PublishedHeader = %q", got)
	}
}
