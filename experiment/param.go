package experiment

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// A Param is one parameter of an experiment, bound to a field of its
// configuration: setting it sets the field. A command takes it as a flag of
// the same name; the value it holds when the experiment is made is the
// published setup's, and so the flag's default.
type Param struct {
	// Name is the parameter's name, as its flag: "edits", "claude-think".
	Name string
	// Usage says what it sets, for the command's help.
	Usage string
	// Type names the kind of value for the help: "int", "duration",
	// "string", "bool".
	Type string
	// Values are the values it takes, for shell completion (each may carry
	// a description after a tab); List says it takes several,
	// comma-separated.
	Values []string
	List   bool
	// Published says the value is part of the published setup: a run with
	// another value is no run of the published setup, and its figures stand
	// alone (see Differences). Label names it there when not by Name
	// (refs' --seeds is its "seed").
	Published bool
	Label     string
	// Field is the JSON name of the configuration field it sets, when not
	// Name with underscores for dashes: a field error of the configuration
	// names the parameter that set its field.
	Field string
	// Served, when set, derives the value from the contract variant a
	// server says it serves, for a run against one when the parameter is
	// not given: a server serves one variant, so the rows follow it.
	Served func(contract.Variant) string

	get func() string
	set func(string) error
	// store, when set, is the part of Storage the parameter sets.
	store func(*Storage)
}

// String returns the value the parameter holds, as it is written.
func (p Param) String() string { return p.get() }

// Set parses s into the configuration field the parameter is bound to.
func (p Param) Set(s string) error { return p.set(s) }

// field returns the JSON name of the configuration field the parameter sets.
func (p Param) field() string {
	if p.Field != "" {
		return p.Field
	}
	return strings.ReplaceAll(p.Name, "-", "_")
}

// label returns the name Differences gives the parameter.
func (p Param) label() string {
	if p.Label != "" {
		return p.Label
	}
	return p.Name
}

// AsPublished returns p marked as part of the published setup.
func (p Param) AsPublished() Param { p.Published = true; return p }

// Labelled returns p, named label in Differences.
func (p Param) Labelled(label string) Param { p.Label = label; return p }

// ForField returns p, setting the configuration field called field.
func (p Param) ForField(field string) Param { p.Field = field; return p }

// ServedAs returns p, its value derived from a server's variant by derive
// when it is not given.
func (p Param) ServedAs(derive func(contract.Variant) string) Param { p.Served = derive; return p }

// Completing returns p, completing to values (several, comma-separated, when
// list).
func (p Param) Completing(list bool, values ...string) Param {
	p.Values, p.List = values, list
	return p
}

// Custom is a parameter of any kind: get writes the field's value as the
// flag is written, set parses a flag value into it.
func Custom(name, typ, usage string, get func() string, set func(string) error) Param {
	return Param{Name: name, Type: typ, Usage: usage, get: get, set: set}
}

// Int is a whole-number parameter.
func Int(name string, p *int, usage string) Param {
	return Custom(name, "int", usage, func() string { return strconv.Itoa(*p) }, func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not a whole number", s)
		}
		*p = n
		return nil
	})
}

// Float is a number parameter.
func Float(name string, p *float64, usage string) Param {
	return Custom(name, "float", usage, func() string { return strconv.FormatFloat(*p, 'g', -1, 64) }, func(s string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		*p = f
		return nil
	})
}

// Duration is a duration parameter, written as Go writes one: "4s", "60µs".
func Duration(name string, p *time.Duration, usage string) Param {
	return Custom(name, "duration", usage, func() string { return p.String() }, func(s string) error {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not a duration (such as 4s or 60µs)", s)
		}
		*p = d
		return nil
	})
}

// String is a text parameter, taken as it is given.
func String(name string, p *string, usage string) Param {
	return Custom(name, "string", usage, func() string { return *p }, func(s string) error { *p = s; return nil })
}

// Bool is a switch.
func Bool(name string, p *bool, usage string) Param {
	return Custom(name, "bool", usage, func() string { return strconv.FormatBool(*p) }, func(s string) error {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		*p = b
		return nil
	})
}

// Enum is a parameter that takes one value of e.
func Enum[T ~string](name string, p *T, e contract.Enum[T], usage string) Param {
	return Custom(name, "string", usage, func() string { return string(*p) }, func(s string) error {
		v, err := e.Parse(s)
		if err != nil {
			return err
		}
		*p = v
		return nil
	}).Completing(false, e.Strings()...)
}

// List is a parameter that takes a comma-separated list, each item parsed by
// parse and written by format, none listed twice.
func List[T comparable](name string, p *[]T, parse func(string) (T, error), format func(T) string, usage string) Param {
	return Custom(name, "strings", usage, func() string {
		items := make([]string, len(*p))
		for i, v := range *p {
			items[i] = format(v)
		}
		return strings.Join(items, ",")
	}, func(s string) error {
		v, err := contract.ParseList(s, parse)
		if err != nil {
			return err
		}
		*p = v
		return nil
	}).Completing(true)
}

// EnumList is a List of values of e.
func EnumList[T ~string](name string, p *[]T, e contract.Enum[T], usage string) Param {
	return List(name, p, e.Parse, func(v T) string { return string(v) }, usage).Completing(true, e.Strings()...)
}

// A ParamError is a value a parameter cannot take, or a configuration field
// set by a parameter that the configuration refuses.
type ParamError struct {
	Param string
	Err   error
}

func (e *ParamError) Error() string { return e.Param + ": " + e.Err.Error() }

func (e *ParamError) Unwrap() error { return e.Err }

// paramErr returns a *ParamError for the parameter called name.
func paramErr(name string, err error) error { return &ParamError{Param: name, Err: err} }

// paramErrf returns a *ParamError with a formatted message.
func paramErrf(name, format string, args ...any) error {
	return paramErr(name, fmt.Errorf(format, args...))
}
