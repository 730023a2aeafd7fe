package report

import (
	"slices"
	"strings"
	"testing"
)

// Each layout step, on one table narrowed step by step: headers wrapped,
// published figures folded under ours, text cells wrapped, parts, one box per
// row. Each step is taken only when the one before does not fit.
func TestLayoutSteps(t *testing.T) {
	tbl := Table{
		Title:  "t",
		Header: []string{"Key", "Lost lines in all runs", PublishedHeader("Lost lines in all runs"), "Conflicts", PublishedHeader("Conflicts"), "Note"},
		Rows: [][]string{
			{"none", "279 of 1,000 (28 %)", "300", "0 / 0", NotPublished, "a note of some length"},
			{"note", "0 of 1,000 (0 %)", "0", "200 / 115", "219 / 133", "d"},
		},
		Notes: []string{"ours: a note"},
	}
	base := boxOf(tbl)
	wrapped := base.wrapHeader()
	merged := base.mergePublished().wrapHeader()
	shrunk := merged.shrink(0, true)
	if !(base.width() > wrapped.width() && wrapped.width() > merged.width() && merged.width() > shrunk.width()) {
		t.Fatalf("widths %d, %d, %d, %d do not narrow step by step", base.width(), wrapped.width(), merged.width(), shrunk.width())
	}
	for _, tc := range []struct {
		width int
		check func([]box) bool
		want  string
	}{
		{0, func(bs []box) bool { return len(bs) == 1 && bs[0].header[1] == "Lost lines in all runs" }, "as it is"},
		{base.width(), func(bs []box) bool { return len(bs) == 1 && bs[0].header[1] == "Lost lines in all runs" }, "as it is"},
		{base.width() - 1, func(bs []box) bool {
			return len(bs) == 1 && strings.Contains(bs[0].header[1], "\n") && len(bs[0].header) == len(tbl.Header)
		}, "headers wrapped"},
		{wrapped.width() - 1, func(bs []box) bool {
			return len(bs) == 1 && len(bs[0].header) == 4 && bs[0].rows[1][2] == "200 / 115\npub 219 / 133" &&
				bs[0].rows[0][2] == "0 / 0" && bs[0].rows[0][3] == "a note of some length" && strings.HasPrefix(bs[0].notes[0], `"pub"`)
		}, "published folded under ours, a figure the write-ups lack left alone"},
		{merged.width() - 1, func(bs []box) bool {
			return len(bs) == 1 && len(bs[0].header) == 4 && strings.Contains(bs[0].rows[0][3], "\n")
		}, "text cells wrapped"},
		{shrunk.width() - 1, func(bs []box) bool {
			last := bs[len(bs)-1]
			return len(bs) == 3 && bs[0].title == "t (part 1 of 3)" && bs[0].header[0] == "Key" && last.header[0] == "Key" &&
				len(bs[0].notes) == 0 && len(last.notes) == 2
		}, "parts, each with the key column, notes under the last"},
	} {
		boxes := layoutText(tbl, tc.width)
		if !tc.check(boxes) {
			t.Errorf("width %d: want %s, got %+v", tc.width, tc.want, boxes)
		}
		for _, b := range boxes {
			if tc.width > 0 && b.width() > max(tc.width, MinWidth) {
				t.Errorf("width %d: a box is %d wide", tc.width, b.width())
			}
		}
	}

	// A row too wide for any part is one box per row: each figure a line,
	// ours beside the published figure, the title above the first.
	wide := Table{Title: "w", Header: []string{"Key", "A", PublishedHeader("A")}, Rows: [][]string{{strings.Repeat("k", 30), strings.Repeat("x", 20), "1"}}}
	bs := layoutText(wide, MinWidth)
	if len(bs) != 1 || bs[0].title != "w\nKey "+strings.Repeat("k", 30) || !slices.Equal(bs[0].header, []string{"Figure", "Ours", "Published"}) ||
		!slices.Equal(bs[0].rows[0], []string{"A", strings.Repeat("x", 20), "1"}) {
		t.Errorf("vertical layout = %+v", bs)
	}
}
