package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/internal/helptext"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpCommands returns every command whose help a user can ask for, by its
// arguments after notesbench ("" for the root), with the command itself.
func helpCommands(t *testing.T) map[string]*cobra.Command {
	t.Helper()
	cmds := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag() // as running it does
		c.InitDefaultVersionFlag()
		if c.IsAvailableCommand() || !c.HasParent() {
			cmds[strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), "notesbench"))] = c
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmdWith(&app{stdout: io.Discard, stderr: io.Discard}, experiments.All()))
	if len(cmds) < 15 {
		t.Fatalf("only %d commands", len(cmds))
	}
	return cmds
}

// helpOnPipe runs notesbench --help with stdout a pipe, as in
// `notesbench race --help | less`, and returns what it printed.
func helpOnPipe(t *testing.T, args []string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		r.Close()
		got <- b
	}()
	var stderr bytes.Buffer
	code := run(args, strings.NewReader(""), w, &stderr)
	w.Close()
	out := string(<-got)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
	}
	return out
}

// helpSections splits a help text into its sections, by heading ("Flags",
// "Examples", …; "" for the text above the first), each its lines. A
// heading is a line of its own, not indented, ending in a colon.
func helpSections(help string) map[string][]string {
	sections := map[string][]string{}
	heading := ""
	for _, line := range strings.Split(strings.TrimRight(help, "\n"), "\n") {
		if h, ok := strings.CutSuffix(line, ":"); ok && h != "" && !strings.HasPrefix(h, " ") {
			heading = h
			continue
		}
		if line == "" {
			continue
		}
		sections[heading] = append(sections[heading], line)
	}
	return sections
}

// exampleSource is an example as a command declares it: the command and
// the comment after its " # ".
var exampleSource = regexp.MustCompile(`^(.*?)(?:\s+#\s+(.*))?$`)

// bareProgram finds notesbench called as the README does not: by its bare
// name where a command starts, at the start of a quoted command or of a
// stdio: target.
var bareProgram = regexp.MustCompile(`(^|[;&|'"]\s*|stdio:)notesbench\s`)

// continuesCommand reports whether an example's line is continued on the
// next, as a shell reads it: it ends in a backslash or a list operator.
func continuesCommand(line string) bool {
	words := helptext.ShellWords(line)
	return len(words) > 0 && (words[len(words)-1] == "\\" || helptext.ListOperator(words[len(words)-1]))
}

// flagLine is the first line of a flag's row: its name, the kind of value
// it takes, then after two spaces or more its description, unless the name
// stands alone.
var flagLine = regexp.MustCompile(`^(  -\S, |      )--(\S+)(?: \S+)?(?:( {2,})(\S.*))?$`)

// checkHelpLayout checks the help of one command, rendered at width: its
// flags and descriptions in two columns, each description line starting at
// the column of its section, every flag there and described whole; every
// example a whole command, the one declared, with its comment.
func checkHelpLayout(t *testing.T, name string, cmd *cobra.Command, help string, width int) {
	t.Helper()
	sections := helpSections(help)
	var examples []string // the commands declared, for the long lines below
	var comments []string
	for _, line := range strings.Split(cmd.Example, "\n") {
		m := exampleSource.FindStringSubmatch(strings.TrimSpace(line))
		examples = append(examples, m[1])
		comments = append(comments, m[2])
	}
	// Examples: comment lines (each "# …") above a command, or the comment
	// beside it; a command continued on the lines after it as a shell
	// continues it (after a list operator or a backslash that ends a line);
	// every command the declared one, whole, in order, calling notesbench
	// as the README does.
	var gotCommands, gotComments []string
	above, continues := "", false
	for _, line := range sections["Examples"] {
		text := strings.TrimPrefix(line, "  ")
		if continues {
			if !strings.HasPrefix(text, "    ") {
				t.Errorf("%s --help at %d columns: a continued line not indented under its command: %q", name, width, line)
			}
			text = strings.TrimSpace(text)
			gotCommands[len(gotCommands)-1] += " " + strings.TrimSuffix(text, " \\")
			continues = continuesCommand(text)
			continue
		}
		if c, ok := strings.CutPrefix(text, "# "); ok {
			above = strings.TrimSpace(above + " " + c)
			continue
		}
		m := exampleSource.FindStringSubmatch(text)
		comment := m[2]
		continues = comment == "" && continuesCommand(m[1])
		if above != "" {
			if comment != "" {
				t.Errorf("%s --help at %d columns: an example with two comments: %q", name, width, line)
			}
			comment, above = above, ""
		}
		gotCommands = append(gotCommands, strings.TrimSuffix(m[1], " \\"))
		gotComments = append(gotComments, comment)
	}
	for _, c := range gotCommands {
		if !slices.Contains(strings.Fields(c), "./notesbench") {
			t.Errorf("%s --help at %d columns: an example that runs no ./notesbench: %q", name, width, c)
		}
		if m := bareProgram.FindString(c); m != "" {
			t.Errorf("%s --help at %d columns: an example calls notesbench as %q, not as the README does (./notesbench, stdio:./notesbench): %q", name, width, m, c)
		}
	}
	// And a shell reads the lines as commands.
	if out, err := exec.Command("sh", "-n", "-c", strings.Join(sections["Examples"], "\n")).CombinedOutput(); err != nil {
		t.Errorf("%s --help at %d columns: the examples are no shell script: %v: %s", name, width, err, out)
	}
	if cmd.HasExample() && (!slices.Equal(gotCommands, examples) || !slices.Equal(gotComments, comments)) {
		t.Errorf("%s --help at %d columns: the examples\n%q with comments %q\nare not the commands declared\n%q with comments %q",
			name, width, gotCommands, gotComments, examples, comments)
	}
	// Every line fits, but a line of an example that holds one word wider
	// than the width (a quoted command), which stays whole.
	for _, line := range strings.Split(help, "\n") {
		n := utf8.RuneCountInString(line)
		oneWord := len(helptext.ShellWords(strings.TrimSuffix(strings.TrimSpace(line), " \\"))) == 1 && strings.HasPrefix(line, "      ")
		if n > width && !(oneWord && width < 80) {
			t.Errorf("%s --help at %d columns: a line of %d columns: %s", name, width, n, line)
		}
	}
	// Flags, section by section.
	for heading, fs := range map[string]*pflag.FlagSet{"Flags": cmd.LocalFlags(), "Global flags": cmd.InheritedFlags()} {
		lines := sections[heading]
		var want []string
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				want = append(want, f.Name)
			}
		})
		if len(want) == 0 {
			if len(lines) > 0 {
				t.Errorf("%s --help: a %s section with no flags", name, heading)
			}
			continue
		}
		col := -1
		descs := map[string][]string{}
		var listed []string
		at := func(line string, c int) {
			if col == -1 {
				col = c
			}
			if c != col {
				t.Errorf("%s --help at %d columns, %s: a description at column %d, not %d:\n%s", name, width, heading, c, col, line)
			}
		}
		for _, line := range lines {
			if m := flagLine.FindStringSubmatchIndex(line); m != nil {
				flag := line[m[4]:m[5]]
				listed = append(listed, flag)
				if m[8] >= 0 {
					at(line, m[8])
					descs[flag] = append(descs[flag], line[m[8]:])
				}
				continue
			}
			if len(listed) == 0 {
				t.Fatalf("%s --help, %s: a description before any flag: %q", name, heading, line)
			}
			body := strings.TrimLeft(line, " ")
			at(line, len(line)-len(body))
			descs[listed[len(listed)-1]] = append(descs[listed[len(listed)-1]], body)
		}
		if !slices.Equal(listed, want) {
			t.Errorf("%s --help, %s: flags %q, want %q", name, heading, listed, want)
		}
		// What pflag says of each flag, word for word.
		for _, f := range want {
			one := pflag.NewFlagSet("", pflag.ContinueOnError)
			one.AddFlag(fs.Lookup(f))
			words := strings.Fields(one.FlagUsagesWrapped(0))
			got := strings.Fields(strings.Join(descs[f], " "))
			if len(got) == 0 || len(got) > len(words) || !slices.Equal(words[len(words)-len(got):], got) {
				t.Errorf("%s --help, --%s is described as %q, pflag says %q", name, f, got, words)
			}
		}
	}
}

// The help of every command lines its flags and their descriptions up in
// columns and breaks an example only where a shell continues it, at 80
// columns ($COLUMNS), on a pipe (80 by default), and at other widths; at 80
// columns and more every line fits, and every example calls notesbench as
// the README does.
func TestHelpLayout(t *testing.T) {
	cmds := helpCommands(t)
	for name, cmd := range cmds {
		args := append(strings.Fields(name), "--help")
		t.Setenv("COLUMNS", "")
		os.Unsetenv("COLUMNS")
		piped := helpOnPipe(t, args)
		checkHelpLayout(t, name, cmd, piped, 80)
		for _, width := range []int{80, 60, 120} {
			t.Setenv("COLUMNS", strconv.Itoa(width))
			code, help, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%s --help: exit %d: %s", name, code, stderr)
			}
			checkHelpLayout(t, name, cmd, help, width)
			if width == 80 && help != piped {
				t.Errorf("%s --help on a pipe is not its help at 80 columns:\n%s\n%s", name, piped, help)
			}
		}
		if !strings.HasPrefix(name, "completion") && !strings.Contains(piped, "\nExamples:\n") {
			t.Errorf("%s --help has no examples", name)
		}
	}
}
