package sim

import (
	"testing"
	"time"
)

func TestParseDist(t *testing.T) {
	const ms, us = time.Millisecond, time.Microsecond
	tests := []struct {
		in   string
		want Dist
		err  string
	}{
		{in: "20ms-80ms", want: Dist{20 * ms, 80 * ms}},
		{in: "5ms", want: Dist{5 * ms, 5 * ms}},
		{in: "0", want: Dist{}},
		{in: "0s", want: Dist{}},
		{in: "1.5ms-3ms", want: Dist{1500 * us, 3 * ms}},
		{in: "250us-1ms", want: Dist{250 * us, ms}},
		{in: "250µs-1ms", want: Dist{250 * us, ms}},
		{in: " 5ms - 40ms ", want: Dist{5 * ms, 40 * ms}},
		{in: "1s-1s", want: Dist{time.Second, time.Second}},
		{in: "80ms-20ms", err: "80ms-20ms: minimum above maximum"},
		{in: "-5ms", err: "-5ms: negative duration"},
		{in: "-5ms-3ms", err: "-5ms: negative duration"},
		{in: "5ms--3ms", err: "-3ms: negative duration"},
		{in: "abc", err: "abc: not a duration"},
		{in: "20ms-abc", err: "abc: not a duration"},
		{in: "5", err: "5: missing unit (e.g. 5ms)"},
		{in: "1-2", err: "1: missing unit (e.g. 1ms)"},
		{in: "20ms-", err: `"20ms-" is not a duration or a range of durations`},
		{in: "", err: `"" is not a duration or a range of durations`},
		{in: "-", err: "-: not a duration"},
	}
	for _, tt := range tests {
		got, err := ParseDist(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseDist(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDist(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestDistStringRoundTrips(t *testing.T) {
	for _, in := range []string{"20ms-80ms", "5ms", "0", "1.5ms-3ms", "250us-1ms", "1h2m3.5s-2h"} {
		d, err := ParseDist(in)
		if err != nil {
			t.Fatalf("ParseDist(%q) = %v", in, err)
		}
		back, err := ParseDist(d.String())
		if err != nil || back != d {
			t.Errorf("ParseDist(%q.String() = %q) = %+v, %v; want %+v", in, d.String(), back, err, d)
		}
	}
	if got := (Dist{20 * time.Millisecond, 80 * time.Millisecond}).String(); got != "20ms-80ms" {
		t.Errorf("String = %q, want 20ms-80ms", got)
	}
	if got := (Dist{}).String(); got != "0s" {
		t.Errorf("zero Dist String = %q, want 0s", got)
	}
}

func TestDistDrawStaysInRangeAndReachesBothEnds(t *testing.T) {
	d := Dist{Min: 10, Max: 12}
	r := Stream(1, "test")
	seen := map[time.Duration]int{}
	for range 3000 {
		x := d.Draw(r)
		if x < d.Min || x > d.Max {
			t.Fatalf("Draw = %v, outside [%v, %v]", x, d.Min, d.Max)
		}
		seen[x]++
	}
	for x := d.Min; x <= d.Max; x++ {
		if seen[x] < 900 || seen[x] > 1100 {
			t.Errorf("%v drawn %d times of 3000, want about 1000", x, seen[x])
		}
	}
}

func TestDistDrawUsesExactlyOneValue(t *testing.T) {
	for _, d := range []Dist{{}, {Min: 5, Max: 5}, {Min: 0, Max: 3}, {Min: time.Millisecond, Max: time.Hour}} {
		r, ref := Stream(9, "x"), Stream(9, "x")
		for range 100 {
			d.Draw(r)
			ref.Uint64()
		}
		if a, b := r.Uint64(), ref.Uint64(); a != b {
			t.Errorf("%v: after 100 draws the stream is out of step with 100 Uint64 calls", d)
		}
	}
}

func TestDistDrawIsDeterministic(t *testing.T) {
	d := Dist{Min: 20 * time.Millisecond, Max: 80 * time.Millisecond}
	r1, r2 := Stream(42, "claude"), Stream(42, "claude")
	for range 100 {
		if a, b := d.Draw(r1), d.Draw(r2); a != b {
			t.Fatalf("same stream drew %v and %v", a, b)
		}
	}
}
