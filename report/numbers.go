package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/internal/plural"
)

// Int formats n with a comma between thousands: 5400 → "5,400".
func Int(n int64) string { return plural.Int(n) }

// Fixed formats f with the given number of decimals and a comma between
// thousands: Fixed(1.4142, 2) → "1.41", Fixed(5237.5, 1) → "5,237.5". A value
// that rounds to zero has no minus sign; NaN and infinities are "n/a".
func Fixed(f float64, decimals int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	if strings.Trim(s, "0.") == "" {
		sign = ""
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	s = group(whole)
	if hasFrac {
		s += "." + frac
	}
	return sign + s
}

// Pct formats a fraction as a percentage with one decimal: 0.43 → "43.0 %".
func Pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return Fixed(100*f, 1) + " %"
}

// Of formats a count out of a total with the whole percentage, as the
// write-ups do: Of(130, 300) → "130 of 300 (43 %)". A share below 1 % keeps two
// decimals, so that a small loss never reads as none: Of(36, 20000) →
// "36 of 20,000 (0.18 %)". A total of 0 gives "0 of 0", without a percentage.
func Of(n, total int64) string {
	s := Int(n) + " of " + Int(total)
	if total == 0 {
		return s
	}
	pct := 100 * float64(n) / float64(total)
	if n != 0 && math.Abs(pct) < 1 {
		return s + " (" + strconv.FormatFloat(pct, 'f', 2, 64) + " %)"
	}
	return s + " (" + strconv.FormatFloat(math.Round(pct), 'f', 0, 64) + " %)"
}

// Num formats a figure of ours whose precision is not fixed by its meaning: a
// whole number as by Int, anything else with at most three decimals (trailing
// zeros dropped), or three significant digits when three decimals would show 0.
// NaN and infinities are "n/a".
func Num(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "n/a"
	case f == math.Trunc(f) && math.Abs(f) < 1<<53:
		return Int(int64(f))
	}
	s := Fixed(f, 3)
	if strings.Trim(s, "0.-") == "" {
		return strconv.FormatFloat(f, 'g', 3, 64)
	}
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// group puts a comma between the thousands of a run of digits.
func group(digits string) string { return plural.Group(digits) }
