package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// clip keeps a table cell to 160 characters on a character boundary, and
// a newline on its line.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in       string
		runes    int
		ellipsis bool
	}{
		{`{"text":"short"}`, 16, false},
		{"a\nb", 4, false},
		{strings.Repeat("é", 200), 161, true},
		{strings.Repeat("x", 159) + "日本", 161, true},
	} {
		got := clip(tc.in)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) != tc.runes ||
			strings.HasSuffix(got, "…") != tc.ellipsis || strings.Contains(got, "\n") {
			t.Errorf("clip(%.20q…) = %q (%d characters), want %d", tc.in, got, utf8.RuneCountInString(got), tc.runes)
		}
	}
}
