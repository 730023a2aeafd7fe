package results

import (
	"encoding/json"
	"math"
	"testing"
)

// oneToHundred is 1, 2, …, 100. Its central 99 % range is the 0.005 and 0.995
// quantiles: h = 99·0.005 = 0.495 gives 1.495, h = 99·0.995 = 98.505 gives
// 99 + 0.505 = 99.505. Its mean is 50.5.
var oneToHundred = span(1, 100)

func TestJudgePoint(t *testing.T) {
	v := Judge("lost", "none", oneToHundred, PointFigure(50), DefaultMass)
	want := Verdict{Figure: "lost", Row: "none", Published: PointFigure(50), OursMean: 50.5,
		OursLow: 1.495, OursHigh: 99.505, OursSD: math.Sqrt(2525.0 / 3), Percentile: 49.5, N: 100, Outcome: Consistent}
	// Percentile: 49 samples below 50 and one equal, (49 + 0.5)/100. The
	// standard deviation of 1..100: Σ(i − 50.5)²/99 = 100·(100² − 1)/12/99.
	if !sameVerdict(v, want) {
		t.Errorf("Judge(50 among 1..100) = %+v, want %+v", v, want)
	}
	v = Judge("lost", "none", oneToHundred, PointFigure(120), DefaultMass)
	if v.Outcome != Differs || v.Percentile != 100 {
		t.Errorf("Judge(120 among 1..100) = %v at %v, want differs at 100", v.Outcome, v.Percentile)
	}
	// Just inside and just outside the range.
	if v := Judge("lost", "", oneToHundred, PointFigure(99.5), DefaultMass); v.Outcome != Consistent {
		t.Errorf("99.5 ≤ 99.505 judged %v", v.Outcome)
	}
	if v := Judge("lost", "", oneToHundred, PointFigure(1.49), DefaultMass); v.Outcome != Differs {
		t.Errorf("1.49 < 1.495 judged %v", v.Outcome)
	}
}

func TestJudgeRange(t *testing.T) {
	for _, tc := range []struct {
		low, high float64
		want      Outcome
	}{
		{40, 60, Consistent},   // inside
		{95, 130, Consistent},  // overlaps the top
		{-5, 1.5, Consistent},  // overlaps the bottom: 1.5 ≥ 1.495
		{-5, 1.4, Differs},     // ends below 1.495
		{100, 130, Differs},    // starts above 99.505
		{-10, 200, Consistent}, // contains ours
	} {
		v := Judge("mean_tries_claude", "note reapply", oneToHundred, RangeFigure(tc.low, tc.high), DefaultMass)
		if v.Outcome != tc.want {
			t.Errorf("range %v–%v judged %v, want %v", tc.low, tc.high, v.Outcome, tc.want)
		}
	}
	// The percentile of a range is that of its midpoint: 60 has 59 below, 1 equal.
	if v := Judge("x", "", oneToHundred, RangeFigure(50, 70), DefaultMass); v.Percentile != 59.5 {
		t.Errorf("percentile of 50–70 = %v, want 59.5", v.Percentile)
	}
}

func TestJudgeNoData(t *testing.T) {
	for name, v := range map[string]Verdict{
		"no samples":    Judge("lost", "", nil, PointFigure(1), DefaultMass),
		"only NaN":      Judge("lost", "", []float64{math.NaN(), math.Inf(1)}, PointFigure(1), DefaultMass),
		"text figure":   Judge("minimal", "", oneToHundred, TextFigure("ok"), DefaultMass),
		"per-seed":      Judge("calls_sent", "", oneToHundred, SeedsFigure(1, 2, 3), DefaultMass),
		"bad mass":      Judge("lost", "", oneToHundred, PointFigure(1), 2),
		"ratio of zero": JudgeRatio("wall_s", "", oneToHundred, PointFigure(0), DefaultMass),
	} {
		if v.Outcome != NoData {
			t.Errorf("%s: outcome %v, want %v", name, v.Outcome, NoData)
		}
		if _, err := json.Marshal(v); err != nil {
			t.Errorf("%s: a NoData verdict must still encode: %v", name, err)
		}
	}
	// NaN samples are dropped, not counted.
	if v := Judge("lost", "", []float64{1, math.NaN(), 3}, PointFigure(2), DefaultMass); v.N != 2 || v.OursMean != 2 {
		t.Errorf("NaN sample kept: n %d mean %v", v.N, v.OursMean)
	}
}

func TestJudgePerSeed(t *testing.T) {
	// 60..80: central 99 % range 60.1 to 79.9 (h = 20·0.005 = 0.1).
	samples := span(60, 80)
	var pub Figure
	if err := json.Unmarshal([]byte(`[71, 61, 90]`), &pub); err != nil {
		t.Fatal(err)
	}
	vs := JudgePerSeed("calls_sent", "A key-first fresh", samples, pub, DefaultMass)
	if len(vs) != 3 {
		t.Fatalf("got %d verdicts, want 3", len(vs))
	}
	for i, want := range []Outcome{Consistent, Consistent, Differs} {
		if vs[i].Seed != i+1 || vs[i].Outcome != want {
			t.Errorf("seed %d: got seed %d %v, want %v", i+1, vs[i].Seed, vs[i].Outcome, want)
		}
	}
	if vs[2].Published.String() != "90" || vs[0].Percentile != 100*(11+0.5)/21 {
		t.Errorf("seed 3 published %q, seed 1 percentile %v", vs[2].Published, vs[0].Percentile)
	}
	if vs := JudgePerSeed("x", "", samples, PointFigure(70), DefaultMass); len(vs) != 1 || vs[0].Outcome != NoData {
		t.Errorf("JudgePerSeed on a point = %+v, want one NoData", vs)
	}
}

func TestJudgeRatio(t *testing.T) {
	// Median of 50 60 70 is 60; the midpoint of 61.9–63.1 is 62.5; 60/62.5 = 0.96.
	v := JudgeRatio("median_us", "note", []float64{70, 50, 60}, RangeFigure(61.9, 63.1), DefaultMass)
	if v.Outcome != RatioOnly || !approxEqual(v.Ratio, 0.96) || v.N != 3 || v.OursMean != 60 {
		t.Errorf("JudgeRatio = %+v, want ratio 0.96", v)
	}
}

func TestJudgeText(t *testing.T) {
	for _, tc := range []struct {
		ours, pub string
		want      Outcome
	}{
		{"operation not in enum", "operation: not in enum", Consistent},
		{"/limit: maximum 50", "limit: maximum 50", Consistent},
		{"slides[0]: unexpected bullets", "slides[0]: unexpected bullets", Consistent},
		{"slides[1]: unexpected bullets", "slides[0]: unexpected bullets", Differs},
		{"ok", "missing title", Differs},
	} {
		if v := JudgeText("minimal", "", tc.ours, TextFigure(tc.pub)); v.Outcome != tc.want || v.OursText != tc.ours {
			t.Errorf("JudgeText(%q, %q) = %v, want %v", tc.ours, tc.pub, v.Outcome, tc.want)
		}
	}
	if v := JudgeText("minimal", "", "ok", PointFigure(1)); v.Outcome != NoData {
		t.Errorf("JudgeText on a point = %v, want no data", v.Outcome)
	}
}

func TestSummary(t *testing.T) {
	vs := []Verdict{{Outcome: Consistent}, {Outcome: Differs}, {Outcome: Consistent}, {Outcome: RatioOnly}, {Outcome: NoData}}
	if c, n := Summary(vs); c != 2 || n != 3 {
		t.Errorf("Summary = %d of %d, want 2 of 3", c, n)
	}
}

func TestVerdictJSON(t *testing.T) {
	v := Verdict{Figure: "lost", Row: "none", Published: PointFigure(300), OursMean: 301.5, OursLow: 250,
		OursHigh: 350, OursSD: 19.5, Percentile: 48, N: 200, Outcome: Consistent}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"figure":"lost","row":"none","published":300,"ours_mean":301.5,"ours_low":250,"ours_high":350,"ours_sd":19.5,"percentile":48,"n":200,"verdict":"consistent"}`
	if string(got) != want {
		t.Errorf("JSON = %s\nwant   %s", got, want)
	}
}

// sameVerdict compares verdicts, floats to a relative 1e-9.
func sameVerdict(a, b Verdict) bool {
	return a.Figure == b.Figure && a.Row == b.Row && a.Seed == b.Seed && a.Published.String() == b.Published.String() &&
		approxEqual(a.OursMean, b.OursMean) && approxEqual(a.OursLow, b.OursLow) && approxEqual(a.OursHigh, b.OursHigh) &&
		approxEqual(a.OursSD, b.OursSD) &&
		approxEqual(a.Percentile, b.Percentile) && a.N == b.N && a.Outcome == b.Outcome && approxEqual(a.Ratio, b.Ratio)
}

// With p = 0.5 over 10,000 trials, the 99 % Wilson interval is 0.5 ± 0.01286
// (z = 2.5758, half-width z·√(0.25/10000)/(1+z²/n) ≈ 0.012876): 0.51 lies inside,
// 0.52 outside, at the 97.7th and 99.99th percentiles of the sampling spread.
func TestJudgeProportion(t *testing.T) {
	v := JudgeProportion("correct", "2 type", 0.5, 10000, PointFigure(0.51), 0.99)
	if v.Outcome != Consistent || math.Abs(v.OursLow-0.487124) > 1e-5 || math.Abs(v.OursHigh-0.512876) > 1e-5 {
		t.Fatalf("0.51: %+v", v)
	}
	if math.Abs(v.Percentile-97.725) > 0.01 {
		t.Fatalf("percentile %v, want 97.725 (Φ(2))", v.Percentile)
	}
	if v := JudgeProportion("correct", "2 type", 0.5, 10000, PointFigure(0.52), 0.99); v.Outcome != Differs {
		t.Fatalf("0.52: %+v", v)
	}
	// A certain outcome (id references are always right): only the same value fits.
	if v := JudgeProportion("correct", "2 id", 1, 10000, PointFigure(1), 0.99); v.Outcome != Consistent || v.Percentile != 50 || v.OursHigh != 1 {
		t.Fatalf("1 against 1: %+v", v)
	}
	if v := JudgeProportion("correct", "2 id", 1, 10000, PointFigure(0.9), 0.99); v.Outcome != Differs || v.Percentile != 0 {
		t.Fatalf("0.9 against 1: %+v", v)
	}
	if v := JudgeProportion("not_found", "2 id", 0, 10000, PointFigure(0), 0.99); v.Outcome != Consistent || v.OursLow != 0 {
		t.Fatalf("0 against 0: %+v", v)
	}
	if v := JudgeProportion("correct", "x", 0.5, 0, PointFigure(0.5), 0.99); v.Outcome != NoData {
		t.Fatalf("no trials: %+v", v)
	}
}
