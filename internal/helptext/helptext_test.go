package helptext

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// toy is the help of a command with a long example, a commented one and
// flags, as notesbench's commands have.
func toy() Help {
	return Help{
		Text:  "A toy command whose help is laid out to a width: its paragraphs wrap, its examples continue as a shell continues them.",
		Usage: []string{"toy [flags]"},
		Example: "toy --seeds 1-20 --edits 200 --target 'stdio:toy serve --db /tmp/x' --profile notes && toy check --history h.jsonl  # run, then check\n" +
			"toy --seeds 1  # one seed",
		Flags: []Row{
			{"      --edits int", "edits per editor, each one write; 0 is the published figure for every experiment that has one"},
			{"      --seeds string", `the seeds to run, a range or a list (default "1-5")`},
			{"  -v, --verbose", "say more"},
		},
	}
}

// Every line fits the width, and the long example, joined back as a shell
// joins continued lines, is the command as written.
func TestRenderFitsAndExamplesRun(t *testing.T) {
	for _, width := range []int{60, 80, 120} {
		help := toy().Render(width)
		for _, line := range strings.Split(help, "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: line of %d: %q", width, n, line)
			}
		}
		_, examples, ok := strings.Cut(help, "\nExamples:\n")
		if !ok {
			t.Fatalf("width %d: no examples:\n%s", width, help)
		}
		examples, _, _ = strings.Cut(examples, "\n\n")
		var joined []string
		for _, line := range strings.Split(examples, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			command, _ := SplitComment(line)
			joined = append(joined, strings.TrimSuffix(command, " \\"))
			if !strings.HasSuffix(command, "\\") && !ListOperator(ShellWords(command)[len(ShellWords(command))-1]) {
				joined = append(joined, "\n")
			}
		}
		got := strings.Split(strings.ReplaceAll(strings.Join(joined, " "), " \n", "\n"), "\n")
		want := []string{
			"toy --seeds 1-20 --edits 200 --target 'stdio:toy serve --db /tmp/x' --profile notes && toy check --history h.jsonl",
			" toy --seeds 1",
		}
		if !slices.Equal(got[:2], want) {
			t.Errorf("width %d: examples joined back:\n%q\nwant\n%q\nhelp:\n%s", width, got, want, help)
		}
	}
}

// A flag's description starts at one column on every row, and a wrapped
// description goes on at that column.
func TestRenderFlagColumns(t *testing.T) {
	help := toy().Render(80)
	_, flags, _ := strings.Cut(help, "\nFlags:\n")
	lines := strings.Split(strings.TrimRight(flags, "\n"), "\n")
	starts := map[string]string{"--edits": "edits per", "--seeds": "the seeds", "--verbose": "say more"}
	col := -1
	for i, line := range lines {
		for flag, desc := range starts {
			if !strings.Contains(line, flag) {
				continue
			}
			at := strings.Index(line, desc)
			if col < 0 {
				col = at
			}
			if at != col || at < 0 {
				t.Errorf("%s: description at column %d, want %d:\n%s", flag, at, col, flags)
			}
			if flag == "--edits" && (i+1 >= len(lines) || len(lines[i+1]) <= col || strings.TrimSpace(lines[i+1][:col]) != "") {
				t.Errorf("--edits: wrapped description not under its column:\n%s", flags)
			}
		}
	}
	if col < 0 {
		t.Fatalf("no flags listed:\n%s", help)
	}
}

// ShellWords keeps quoted words whole, SplitComment takes a # only where a
// word starts outside quotes.
func TestShellWordsAndComments(t *testing.T) {
	if got := ShellWords(`a 'b c' "d # e"  f`); !slices.Equal(got, []string{"a", "'b c'", `"d # e"`, "f"}) {
		t.Errorf("ShellWords: %q", got)
	}
	for line, want := range map[string][2]string{
		"run --x 'a # b'  # why": {"run --x 'a # b'", "why"},
		"run a#b":                {"run a#b", ""},
		"# only a comment":       {"", "only a comment"},
	} {
		if c, m := SplitComment(line); c != want[0] || m != want[1] {
			t.Errorf("SplitComment(%q) = %q, %q; want %q", line, c, m, want)
		}
	}
}
