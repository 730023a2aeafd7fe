package results

import (
	"encoding/json"
	"math"
	"testing"
)

// oneToHundred is 1, 2, …, 100: mean 50.5, standard deviation
// √(100·(100² − 1)/12/99) = 29.01. It is symmetric, so it is judged as near
// normal: 50.5 ± t(0.995, 99)·s·√(1.01) with t = 2.626405, from 0 at the
// lowest (no sample is negative) to 127.08.
var oneToHundred = span(1, 100)

func TestJudgePoint(t *testing.T) {
	v := Judge("lost", "none", oneToHundred, PointFigure(50), DefaultMass)
	sd := math.Sqrt(2525.0 / 3)
	want := Verdict{Figure: "lost", Row: "none", Published: PointFigure(50), OursMean: 50.5,
		OursLow: 0, OursHigh: v.OursHigh, OursSD: sd, Percentile: 49.5, N: 100,
		Method: MethodNormal, Coverage: 0.99, Outcome: Consistent}
	// Percentile: 49 samples below 50 and one equal, (49 + 0.5)/100.
	if !sameVerdict(v, want) || math.Abs(v.OursHigh-(50.5+2.626405*sd*math.Sqrt(1.01))) > 1e-4 {
		t.Errorf("Judge(50 among 1..100) = %+v, want %+v up to 127.076", v, want)
	}
	v = Judge("lost", "none", oneToHundred, PointFigure(130), DefaultMass)
	if v.Outcome != Differs || v.Percentile != 100 {
		t.Errorf("Judge(130 among 1..100) = %v at %v, want differs at 100", v.Outcome, v.Percentile)
	}
	// Just inside and just outside the interval.
	if v := Judge("lost", "", oneToHundred, PointFigure(127), DefaultMass); v.Outcome != Consistent {
		t.Errorf("127 ≤ 127.08 judged %v", v.Outcome)
	}
	if v := Judge("lost", "", oneToHundred, PointFigure(127.1), DefaultMass); v.Outcome != Differs {
		t.Errorf("127.1 > 127.08 judged %v", v.Outcome)
	}
	// A figure that never varied is consistent with that value only.
	ten := []float64{35, 35, 35, 35, 35, 35, 35, 35, 35, 35}
	if v := Judge("lost", "ms", ten, PointFigure(35), DefaultMass); v.Outcome != Consistent || v.Method != MethodConstant || v.Coverage != 10.0/11 {
		t.Errorf("35 against ten 35s: %+v", v)
	}
	if v := Judge("lost", "ms", ten, PointFigure(136), DefaultMass); v.Outcome != Differs {
		t.Errorf("136 against ten 35s: %+v", v)
	}
}

func TestJudgeRange(t *testing.T) {
	for _, tc := range []struct {
		low, high float64
		want      Conclusion
	}{
		{40, 60, Consistent},   // inside
		{95, 130, Consistent},  // overlaps the top
		{127, 130, Consistent}, // overlaps the top: 127 ≤ 127.08
		{127.1, 130, Differs},  // starts above 127.08
		{-10, -1, Differs},     // ends below 0
		{-10, 200, Consistent}, // contains ours
		{-10, 0, Consistent},   // touches 0
		{200, 1000, Differs},   // far above
		{0.5, 127.08, Consistent},
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
		"bad coverage":  Judge("lost", "", oneToHundred, PointFigure(1), 1),
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
	// 60..80, symmetric: 70 ± t(0.995, 20)·s·√(1 + 1/21) with s² = 770/20 and
	// t = 2.845340, that is 51.93 to 88.07.
	samples := span(60, 80)
	var pub Figure
	if err := json.Unmarshal([]byte(`[71, 61, 90]`), &pub); err != nil {
		t.Fatal(err)
	}
	vs := judgePerSeed("calls_sent", "A key-first fresh", samples, pub, DefaultMass)
	if len(vs) != 3 {
		t.Fatalf("got %d verdicts, want 3", len(vs))
	}
	for i, want := range []Conclusion{Consistent, Consistent, Differs} {
		if vs[i].Seed != i+1 || vs[i].Outcome != want {
			t.Errorf("seed %d: got seed %d %v, want %v", i+1, vs[i].Seed, vs[i].Outcome, want)
		}
	}
	half := 2.845340 * math.Sqrt(770.0/20) * math.Sqrt(1+1.0/21)
	if math.Abs(vs[0].OursLow-(70-half)) > 1e-4 || math.Abs(vs[0].OursHigh-(70+half)) > 1e-4 || vs[0].Method != MethodNormal {
		t.Errorf("interval %v–%v by %v, want 70 ± %.4f by normal", vs[0].OursLow, vs[0].OursHigh, vs[0].Method, half)
	}
	if vs[2].Published.String() != "90" || vs[0].Percentile != 100*(11+0.5)/21 {
		t.Errorf("seed 3 published %q, seed 1 percentile %v", vs[2].Published, vs[0].Percentile)
	}
	if vs := judgePerSeed("x", "", samples, PointFigure(70), DefaultMass); len(vs) != 1 || vs[0].Outcome != NoData {
		t.Errorf("judgePerSeed on a point = %+v, want one NoData", vs)
	}
}

func TestJudgeRatio(t *testing.T) {
	// Median of 50 60 70 is 60; the midpoint of 61.9–63.1 is 62.5; 60/62.5 = 0.96.
	// Three samples are too few to judge a shape: order statistics, 50 %.
	v := JudgeRatio("median_us", "note", []float64{70, 50, 60}, RangeFigure(61.9, 63.1), DefaultMass)
	if v.Outcome != RatioOnly || !approxEqual(v.Ratio, 0.96) || v.N != 3 || v.OursMean != 60 ||
		v.Method != MethodOrder || v.Coverage != 0.5 || v.OursLow != 50 || v.OursHigh != 70 {
		t.Errorf("JudgeRatio = %+v, want ratio 0.96", v)
	}
}

func TestJudgeText(t *testing.T) {
	for _, tc := range []struct {
		ours, pub string
		want      Conclusion
	}{
		{"operation not in enum", "operation: not in enum", Consistent},
		{"/limit: maximum 50", "limit: maximum 50", Consistent},
		{"slides[0]: unexpected bullets", "slides[0]: unexpected bullets", Consistent},
		{"slides[1]: unexpected bullets", "slides[0]: unexpected bullets", Differs},
		{"ok", "missing title", Differs},
	} {
		if v := JudgeText("minimal", "", tc.ours, TextFigure(tc.pub)); v.Outcome != tc.want || v.OursText != tc.ours || v.Method != MethodText || v.Coverage != 0 {
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
		OursHigh: 350, OursSD: 19.5, Percentile: 48, N: 200, Method: MethodNormal, Coverage: 0.99, Outcome: Consistent}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"figure":"lost","row":"none","published":300,"ours_mean":301.5,"ours_low":250,"ours_high":350,"ours_sd":19.5,"percentile":48,"n":200,"method":"normal","coverage":0.99,"verdict":"consistent"}`
	if string(got) != want {
		t.Errorf("JSON = %s\nwant   %s", got, want)
	}
}

// sameVerdict compares verdicts, floats to a relative 1e-9.
func sameVerdict(a, b Verdict) bool {
	return a.Figure == b.Figure && a.Row == b.Row && a.Seed == b.Seed && a.Published.String() == b.Published.String() &&
		approxEqual(a.OursMean, b.OursMean) && approxEqual(a.OursLow, b.OursLow) && approxEqual(a.OursHigh, b.OursHigh) &&
		approxEqual(a.OursSD, b.OursSD) && approxEqual(a.Percentile, b.Percentile) && a.N == b.N &&
		a.Method == b.Method && a.Coverage == b.Coverage && a.Outcome == b.Outcome && approxEqual(a.Ratio, b.Ratio)
}
