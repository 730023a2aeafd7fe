package cli

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/notesbench/notesbench/internal/shell"
)

// urlPassword matches the password of a URL's user information.
var urlPassword = regexp.MustCompile(`(://[^:/@\s]+):[^@\s]+@`)

// redactPasswords replaces the password of every URL in s with ****.
func redactPasswords(s string) string { return urlPassword.ReplaceAllString(s, "$1:****@") }

// CommandLine writes notesbench with args as a POSIX shell reads it back:
// each argument quoted when it holds anything but letters, digits and
// -_./:=@%+,, passwords in URLs left out. Pasted into a shell, it runs the
// same command.
func CommandLine(args []string) string {
	words := []string{"notesbench"}
	for _, a := range args {
		words = append(words, shell.Quote(redactPasswords(a)))
	}
	return strings.Join(words, " ")
}

// Closing closes what a command opened, as the command ends: a failure to
// close (a store's last checkpoint, a server's documents left behind, a
// folder not removed) is the command's error when it had none, and said on
// stderr, one line, when it had one of its own.
func Closing(stderr io.Writer, what string, close func() error, err *error) {
	cerr := close()
	switch {
	case cerr == nil:
	case *err == nil:
		*err = fmt.Errorf("closing %s: %w", what, cerr)
	default:
		fmt.Fprintf(stderr, "notesbench: closing %s: %v\n", what, cerr)
	}
}
