package mcpclient

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// TargetSpec is a parsed target: a command to spawn, or the URL of a
// streamable HTTP endpoint.
type TargetSpec struct {
	// Raw is the target as the user wrote it; errors name it.
	Raw string
	// Command is the program and its arguments, for a stdio target.
	Command []string
	// URL is the endpoint, for an http or https target: the first of URLs.
	URL string
	// URLs are the endpoints of the replicas of an HTTP target written as
	// several URLs, comma-separated; nil for one.
	URLs []string
}

// String returns the target as the user wrote it.
func (s TargetSpec) String() string { return s.Raw }

// Stdio reports whether the target spawns a server.
func (s TargetSpec) Stdio() bool { return len(s.Command) > 0 }

// ErrSyntax is wrapped by every error of Parse.
var ErrSyntax = errors.New("malformed target")

// syntaxf returns a Parse error naming the target.
func syntaxf(raw, format string, args ...any) error {
	return fmt.Errorf("%w %q: %s (want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH)", ErrSyntax, raw, fmt.Sprintf(format, args...))
}

// Parse parses a target:
//
//	stdio:COMMAND [ARGS]      spawn COMMAND and speak MCP on its stdin and stdout
//	http://HOST:PORT/PATH     streamable HTTP (https too)
//
// The port of an HTTP target may be PortPlaceholder, for a server the
// Target starts (Options.Spawn).
//
// The command line is split on spaces; single and double quotes group words
// and a backslash escapes the next character, as in a shell, without any
// expansion.
func Parse(raw string) (TargetSpec, error) {
	s := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(s, "stdio:"):
		words, err := splitWords(strings.TrimPrefix(s, "stdio:"))
		if err != nil {
			return TargetSpec{}, syntaxf(raw, "%v", err)
		}
		if len(words) == 0 {
			return TargetSpec{}, syntaxf(raw, "no command after stdio:")
		}
		return TargetSpec{Raw: s, Command: words}, nil
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		if strings.Contains(s, ",") {
			return parseReplicas(raw, s)
		}
		if err := checkURL(raw, s); err != nil {
			return TargetSpec{}, err
		}
		return TargetSpec{Raw: s, URL: s}, nil
	case s == "":
		return TargetSpec{}, syntaxf(raw, "empty")
	}
	return TargetSpec{}, syntaxf(raw, "unknown kind")
}

// checkURL checks one endpoint of a target raw.
func checkURL(raw, s string) error {
	// The port a spawned server is given (Options.Spawn) is checked as a
	// port would be.
	u, err := url.Parse(strings.Replace(s, ":"+PortPlaceholder, ":1", 1))
	if err != nil {
		return syntaxf(raw, "%v", errors.Unwrap(err))
	}
	if u.Host == "" {
		return syntaxf(raw, "no host")
	}
	if _, port, err := net.SplitHostPort(u.Host); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return syntaxf(raw, "port %q is not 1 to 65535", port)
		}
	}
	if u.User != nil || u.Fragment != "" {
		return syntaxf(raw, "no user or fragment allowed")
	}
	return nil
}

// SplitCommand splits a command line as a stdio target's command is split
// (see Parse): the words of Options.Spawn.
func SplitCommand(s string) ([]string, error) {
	words, err := splitWords(s)
	if err == nil && len(words) == 0 {
		err = errors.New("no command")
	}
	return words, err
}

// splitWords splits a command line as a shell would, without expansion.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case escaped:
		return nil, errors.New("a backslash ends the command")
	case quote != 0:
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
