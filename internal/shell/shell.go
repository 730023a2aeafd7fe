// Package shell writes command lines that a POSIX shell reads back as the
// words they were made of: the commands notesbench records, lists and
// runs through sh -c.
package shell

import "strings"

// literal are the characters a shell takes as themselves in a word.
const literal = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,"

// Quote returns s as one shell word: as it is when it holds only
// characters a shell takes as themselves, else in single quotes (a quote
// inside written '\”).
func Quote(s string) string {
	if s != "" && strings.Trim(s, literal) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Line returns argv as one command line, each word as Quote writes it.
func Line(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = Quote(a)
	}
	return strings.Join(words, " ")
}
