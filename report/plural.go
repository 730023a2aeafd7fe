package report

// Count writes n and a noun, plural unless n is 1: Count(1, "violation") is
// "1 violation", Count(5400, "figure") "5,400 figures". Nouns whose plural
// is not noun+"s" are not used with it.
func Count(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return Int(int64(n)) + " " + noun
}
