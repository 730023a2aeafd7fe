package contract

import (
	"fmt"
	"slices"
	"strings"
)

// An Enum is a named set of string values: the one parser of every enum of
// notesbench (a guard, a version format, a clock, an output format…), with
// one error text and one list of values for shell completion. It lives here,
// at the bottom of the project, so that every layer can use it.
type Enum[T ~string] struct {
	// What names the value in errors: "guard", "version format".
	What string
	// Values are the values it takes, in the order errors list them.
	Values []T
}

// NewEnum returns the Enum of what that takes values.
func NewEnum[T ~string](what string, values ...T) Enum[T] {
	return Enum[T]{What: what, Values: values}
}

// Parse returns the value s names: `unknown guard "x" (want none, note or
// tab)` when it names none.
func (e Enum[T]) Parse(s string) (T, error) {
	if slices.Contains(e.Values, T(s)) {
		return T(s), nil
	}
	return "", fmt.Errorf("unknown %s %q (want %s)", e.What, s, e.Want())
}

// Want writes the values as a choice: "none, note or tab".
func (e Enum[T]) Want() string { return Choice(e.Strings()) }

// Strings returns the values as strings, in order.
func (e Enum[T]) Strings() []string {
	out := make([]string, len(e.Values))
	for i, v := range e.Values {
		out[i] = string(v)
	}
	return out
}

// Choice writes items as a choice between them: "a", "a or b", "a, b or c".
func Choice(items []string) string {
	switch n := len(items); n {
	case 0:
		return ""
	case 1:
		return items[0]
	default:
		return strings.Join(items[:n-1], ", ") + " or " + items[n-1]
	}
}

// ParseList parses a comma-separated list item by item with parse: the one
// list parser of notesbench. Items are trimmed before parse sees them (an
// empty one too: parse says what is wrong with it); an item listed twice is
// an error ("ms is listed twice"); an error of parse is returned as it is.
func ParseList[T comparable](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for item := range strings.SplitSeq(s, ",") {
		v, err := parse(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%v is listed twice", v)
		}
		out = append(out, v)
	}
	return out, nil
}
