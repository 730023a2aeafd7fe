// Package plural writes counts with their nouns: "1 figure", "3 figures", and
// numbers with their thousands grouped: "10,000".
// Every package that prints a count in words uses it, so that none prints
// "1 violations". It knows nothing of what is counted.
package plural

import (
	"strconv"
	"strings"
)

// Noun returns noun, with an "s" unless n is 1 (or -1). Nouns whose plural is
// not noun+"s" are not to be passed.
func Noun(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	return noun + "s"
}

// Count returns n, its thousands grouped, and its noun: Count(1, "figure")
// is "1 figure", Count(0, "figure") "0 figures", Count(5400, "figure")
// "5,400 figures".
func Count(n int, noun string) string {
	return Int(int64(n)) + " " + Noun(n, noun)
}

// Int writes n with a comma between thousands: 10000 → "10,000".
func Int(n int64) string {
	s := strconv.FormatInt(n, 10)
	if s[0] == '-' {
		return "-" + Group(s[1:])
	}
	return Group(s)
}

// Group puts a comma between the thousands of a run of digits: "10000" →
// "10,000".
func Group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}
