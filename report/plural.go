package report

import "github.com/notesbench/notesbench/internal/plural"

// Count writes n with a comma between thousands and its noun, plural unless n
// is 1: Count(1, "violation") is "1 violation", Count(5400, "figure") "5,400
// figures".
func Count(n int, noun string) string { return plural.Count(n, noun) }
