package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/field"
	"github.com/spf13/pflag"
)

// A replay line pasted into a shell runs the same command: every argument
// that needs it is quoted, passwords left out.
func TestCommandLineReadsBack(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"race", "--seeds", "1-2"}, "notesbench race --seeds 1-2"},
		{[]string{"conform", "--target", "stdio:./nb serve --db c.db --guard none"}, "notesbench conform --target 'stdio:./nb serve --db c.db --guard none'"},
		{[]string{"race", "--out", "it's.json", "--note", ""}, `notesbench race --out 'it'\''s.json' --note ''`},
		{[]string{"race", "--store", "postgres://u:secret@h/db"}, "notesbench race --store 'postgres://u:****@h/db'"},
	} {
		if got := CommandLine(tc.args); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.args, got, tc.want)
		}
		if strings.Contains(tc.want, "****") {
			continue
		}
		// The shell reads back the arguments as they were.
		script := "set -- " + strings.TrimPrefix(CommandLine(tc.args), "notesbench ") + `; for a in "$@"; do printf '%s\0' "$a"; done`
		out, err := exec.Command("sh", "-c", script).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(got, tc.args) {
			t.Errorf("the shell reads %q back as %q", CommandLine(tc.args), got)
		}
	}
}

// A failure to close is the command's error when it had none, and a line on
// stderr when it had one: never dropped, never in place of the first.
func TestClosingSaysWhatFailed(t *testing.T) {
	var stderr bytes.Buffer
	fail := func() error { return errors.New("disk full") }
	var err error
	Closing(&stderr, "the store", fail, &err)
	if err == nil || err.Error() != "closing the store: disk full" || stderr.Len() != 0 {
		t.Errorf("no error before: %v, stderr %q", err, stderr.String())
	}
	first := errors.New("the run failed")
	err = first
	Closing(&stderr, "the store", fail, &err)
	if err != first || stderr.String() != "notesbench: closing the store: disk full\n" {
		t.Errorf("an error before: %v, stderr %q", err, stderr.String())
	}
	err = nil
	Closing(&stderr, "the store", func() error { return nil }, &err)
	if err != nil {
		t.Errorf("a clean close: %v", err)
	}
}

// A field error names the flag that set the field, and never a flag the
// command does not have.
func TestFieldErrorsNameOnlyFlagsThatExist(t *testing.T) {
	fs := pflag.NewFlagSet("sources", pflag.ContinueOnError)
	fs.Int("sessions", 0, "")
	fs.Duration("window", 0, "")
	for _, tc := range []struct {
		field, want string
	}{
		{"sessions", "--sessions: must be at least 1"},
		{"list_sources", "list sources: must be at least 1"},
		{"service_time_ns", "service time ns: must be at least 1"},
	} {
		err := FlagError(fs, field.Errorf(tc.field, "must be at least 1"))
		var u UsageError
		if !errors.As(err, &u) || err.Error() != tc.want {
			t.Errorf("%s: %v, want the usage error %q", tc.field, err, tc.want)
		}
	}
	plain := errors.New("disk full")
	if err := FlagError(fs, plain); err != plain {
		t.Errorf("a plain error became %v", err)
	}
}
