package cli

import (
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// defaultWidth is the width the table format fits when the terminal's is
// unknown.
const defaultWidth = 80

// Width returns the columns the table format must fit: $COLUMNS when it
// holds a positive number, else the width of the terminal stdout is, else
// 80.
func Width(stdout io.Writer) int {
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if f, ok := stdout.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return defaultWidth
}
