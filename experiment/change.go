package experiment

import (
	"fmt"
	"slices"
)

// A Change is what a composition (the audit) sets of an experiment whose
// configuration is C, typed: Set sets fields of the configuration, and
// Given names the parameters bound to them, in the order a command line
// that makes the same change lists them. The parameters a Change names
// count as given, as flags a command was given: Finish reads them so, and
// Use derives none of them from a server's variant. The zero Change sets
// nothing.
type Change[C any] struct {
	Given []string
	Set   func(c *C)
}

// Configured is an experiment a composition configured with Changes: the
// instance, and the parameters the changes named, in order.
type Configured struct {
	Instance
	given []string
}

// Configure returns d at its published setup with changes made, in order.
// A C that is not d's configuration, a change that names a parameter d does
// not take, or one that sets a parameter it does not name, is the
// composition's bug, returned as an error: its command line would not say
// what ran.
func Configure[C any](d Descriptor, changes ...Change[C]) (Configured, error) {
	in := d.New()
	c, ok := in.configuration().(*C)
	if !ok {
		return Configured{}, fmt.Errorf("experiment: %s is not configured by a %T", d.Info().Name, *new(C))
	}
	before := make([]string, len(in.Params()))
	for i, p := range in.Params() {
		before[i] = p.String()
	}
	x := Configured{Instance: in}
	for _, ch := range changes {
		for _, name := range ch.Given {
			if _, ok := x.param(name); !ok {
				return Configured{}, fmt.Errorf("experiment: %s has no parameter %s", d.Info().Name, name)
			}
			x.given = append(x.given, name)
		}
		if ch.Set != nil {
			ch.Set(c)
		}
	}
	for i, p := range in.Params() {
		if p.String() != before[i] && !x.Given(p.Name) {
			return Configured{}, fmt.Errorf("experiment: %s: a change sets %s without naming it", d.Info().Name, p.Name)
		}
	}
	return x, nil
}

// Given reports whether a change named the parameter called name.
func (x Configured) Given(name string) bool { return slices.Contains(x.given, name) }

// Flags returns the command-line flags of the parameters the changes named,
// "--name value" each, with the values they hold, in the order named, but
// those called one of omit.
func (x Configured) Flags(omit ...string) []string {
	var out []string
	for _, name := range x.given {
		if p, _ := x.param(name); !slices.Contains(omit, name) {
			out = append(out, "--"+name, p.String())
		}
	}
	return out
}

// param returns the parameter called name.
func (x Configured) param(name string) (Param, bool) {
	i := slices.IndexFunc(x.Params(), func(p Param) bool { return p.Name == name })
	if i < 0 {
		return Param{}, false
	}
	return x.Params()[i], true
}
