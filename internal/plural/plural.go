// Package plural writes counts with their nouns: "1 figure", "3 figures".
// Every package that prints a count in words uses it, so that none prints
// "1 violations". It knows nothing of what is counted.
package plural

import "strconv"

// Noun returns noun, with an "s" unless n is 1 (or -1). Nouns whose plural is
// not noun+"s" are not to be passed.
func Noun(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	return noun + "s"
}

// Count returns n and its noun: Count(1, "figure") is "1 figure", Count(0,
// "figure") "0 figures".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}
