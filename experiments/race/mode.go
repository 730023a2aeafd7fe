package race

import (
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/sim"
)

// Mode is one row of the race table: a version guard and a conflict policy.
type Mode struct {
	Guard  contract.Guard `json:"guard"`
	Policy sim.Policy     `json:"policy"`
}

func (m Mode) String() string {
	if m.Guard == contract.GuardNone {
		return "none"
	}
	return string(m.Guard) + "/" + string(m.Policy)
}

// MarshalText writes the mode as ParseModes reads it.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode written by MarshalText: a configuration read
// back from its record (notesbench merge) has the modes it ran.
func (m *Mode) UnmarshalText(b []byte) error {
	modes, err := ParseModes(string(b))
	if err != nil {
		return err
	}
	if len(modes) != 1 {
		return fmt.Errorf("%q is not one mode", b)
	}
	*m = modes[0]
	return nil
}

// ParseModes parses a comma-separated list of guard/policy pairs, such as
// "none,note/reapply,note/refresh". A guard of none needs no policy, since
// nothing ever conflicts.
func ParseModes(s string) ([]Mode, error) {
	var modes []Mode
	seen := map[Mode]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		guard, policy, hasPolicy := strings.Cut(item, "/")
		g, err := contract.Guards.Parse(guard)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		m := Mode{Guard: g, Policy: sim.Reapply}
		switch {
		case hasPolicy && g == contract.GuardNone:
			return nil, fmt.Errorf("%q: guard none takes no policy (nothing ever conflicts): write none", item)
		case hasPolicy:
			if m.Policy, err = sim.Policies.Parse(policy); err != nil {
				return nil, fmt.Errorf("%q: %w", item, err)
			}
		case g != contract.GuardNone:
			return nil, fmt.Errorf("%q: a %s guard needs a policy, e.g. %s/reapply", item, g, g)
		}
		if seen[m] {
			return nil, fmt.Errorf("%q is listed twice", item)
		}
		seen[m] = true
		modes = append(modes, m)
	}
	return modes, nil
}

// FormatModes writes modes as ParseModes reads them, comma-separated.
func FormatModes(modes []Mode) string {
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = m.String()
	}
	return strings.Join(out, ",")
}
