package sim

import (
	"slices"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		in   string
		want []uint64
		err  string
	}{
		{in: "7", want: []uint64{7}},
		{in: "1-5", want: []uint64{1, 2, 3, 4, 5}},
		{in: "1-5,7,10-12", want: []uint64{1, 2, 3, 4, 5, 7, 10, 11, 12}},
		{in: " 10-12 , 3 ", want: []uint64{10, 11, 12, 3}},
		{in: "0", want: []uint64{0}},
		{in: "4-4", want: []uint64{4}},
		{in: "18446744073709551614-18446744073709551615", want: []uint64{1<<64 - 2, 1<<64 - 1}},
		{in: "", err: "no seeds given"},
		{in: "  ", err: "no seeds given"},
		{in: "5-1", err: "range 5-1 is empty"},
		{in: "1-3,9-8", err: "range 9-8 is empty"},
		{in: "x", err: `"x" is not a seed`},
		{in: "-3", err: `"-3" is not a seed`},
		{in: "1.5", err: `"1.5" is not a seed`},
		{in: "18446744073709551616", err: `"18446744073709551616" is not a seed`},
		{in: "1-x", err: `"1-x" is not a seed range`},
		{in: "1-", err: `"1-" is not a seed range`},
		{in: "1-2-3", err: `"1-2-3" is not a seed range`},
		{in: "1-5,3", err: "seed 3 is listed twice"},
		{in: "7,7", err: "seed 7 is listed twice"},
		{in: "1,,2", err: "empty item in seed list"},
		{in: "1-5,", err: "empty item in seed list"},
		{in: "1-1000000", want: nil}, // exactly the limit: checked by length below
		{in: "0-1000000", err: "more than 1000000 seeds"},
		{in: "0,1-1000000", err: "more than 1000000 seeds"},
		{in: "0-18446744073709551615", err: "more than 1000000 seeds"},
	}
	for _, tt := range tests {
		got, err := ParseSeeds(tt.in)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseSeeds(%q) error = %v, want %q", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("ParseSeeds(%q) = %v", tt.in, err)
		case tt.want == nil:
			if len(got) != 1_000_000 {
				t.Errorf("ParseSeeds(%q) gave %d seeds, want 1000000", tt.in, len(got))
			}
		case !slices.Equal(got, tt.want):
			t.Errorf("ParseSeeds(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFormatSeeds(t *testing.T) {
	tests := []struct {
		in   []uint64
		want string
	}{
		{nil, ""},
		{[]uint64{7}, "7"},
		{[]uint64{1, 2, 3, 4, 5, 7}, "1-5,7"},
		{[]uint64{1, 2, 3, 4, 5, 7, 10, 11, 12}, "1-5,7,10-12"},
		{[]uint64{3, 4}, "3-4"},
		{[]uint64{10, 11, 12, 3}, "10-12,3"},
		{[]uint64{5, 4, 3}, "5,4,3"},
		{[]uint64{1<<64 - 1, 0, 1}, "18446744073709551615,0-1"},
	}
	for _, tt := range tests {
		got := FormatSeeds(tt.in)
		if got != tt.want {
			t.Errorf("FormatSeeds(%v) = %q, want %q", tt.in, got, tt.want)
		}
		if len(tt.in) == 0 {
			continue
		}
		back, err := ParseSeeds(got)
		if err != nil || !slices.Equal(back, tt.in) {
			t.Errorf("ParseSeeds(FormatSeeds(%v)) = %v, %v", tt.in, back, err)
		}
	}
}
