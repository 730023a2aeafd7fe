package shell

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A word is left bare only when a shell takes it as itself; sh reads every
// line back as the words it was made of, quotes and spaces included.
func TestLineReadsBack(t *testing.T) {
	argv := []string{"notesbench", "crash", "--target", "stdio:x --db 'a b'.db", "", "it's", "$(touch pwned)", "a\nb", "5ms-40ms"}
	line := Line(argv)
	if want := `notesbench crash --target 'stdio:x --db '\''a b'\''.db' '' 'it'\''s' '$(touch pwned)' 'a` + "\n" + `b' 5ms-40ms`; line != want {
		t.Errorf("line %s, want %s", line, want)
	}
	out, err := exec.Command("sh", "-c", `for w in `+line+`; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, argv) {
		t.Errorf("sh read back %q, want %q", got, argv)
	}
}
