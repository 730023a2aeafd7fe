package nemesis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
)

// all are the nemeses, in the order --nemesis lists them.
var all = []Nemesis{Kill{}, Pause{}, LoseReplies{}, Duplicate{}}

// All returns the nemeses, in order.
func All() []Nemesis { return slices.Clone(all) }

// Kinds returns the kinds of the nemeses, in order.
func Kinds() []string {
	out := make([]string, len(all))
	for i, n := range all {
		out[i] = n.Kind()
	}
	return out
}

// Lookup returns the nemesis of kind, and false when there is none.
func Lookup(kind string) (Nemesis, bool) {
	i := slices.IndexFunc(all, func(n Nemesis) bool { return n.Kind() == kind })
	if i < 0 {
		return nil, false
	}
	return all[i], true
}

// Parse reads a list of kinds as --nemesis takes it: comma-separated, each
// once.
func Parse(s string) ([]string, error) {
	var kinds []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		switch _, ok := Lookup(k); {
		case !ok:
			return nil, fmt.Errorf("%q is not a fault: want %s, comma-separated", k, contract.Choice(Kinds()))
		case slices.Contains(kinds, k):
			return nil, fmt.Errorf("%q is listed twice", k)
		}
		kinds = append(kinds, k)
	}
	return kinds, nil
}

// At reports whether any of kinds is made at place.
func At(place Place, kinds []string) bool {
	return slices.ContainsFunc(kinds, func(k string) bool {
		n, ok := Lookup(k)
		return ok && n.Place() == place
	})
}

// KindsAt returns the kinds made at place, in order.
func KindsAt(place Place) []string {
	var out []string
	for _, n := range all {
		if n.Place() == place {
			out = append(out, n.Kind())
		}
	}
	return out
}

// Help says, for a flag's help, each nemesis and what it does: "kill
// (SIGKILL, then start it again), pause (…)".
func Help() string {
	parts := make([]string, len(all))
	for i, n := range all {
		parts[i] = n.Kind() + " (" + n.About() + ")"
	}
	return strings.Join(parts, ", ")
}
