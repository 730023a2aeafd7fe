package results

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Value is our side of one figure of one row: its numbers (one, or one per
// seed for a per-seed figure) or, for a figure in words, its text.
type Value struct {
	Nums []float64
	Text string
}

// Row is one row of an experiment's table, read by the names published.json
// uses for its keys and figures. Verdicts, invariants and baselines read rows
// only through it, so a renamed field fails to compile instead of quietly
// turning a verdict into "no data". A row type implements it with the
// Fields table it declares beside it.
type Row interface {
	// KeyOf returns the value of key field name as published rows hold it
	// ("note", "2"), or "" when the row has none (race's guard none has no
	// policy).
	KeyOf(name string) string
	// FigureOf returns figure name and whether the row carries it.
	FigureOf(name string) (Value, bool)
	// Names returns the key fields and figures the row can be read by,
	// sorted.
	Names() (keys, figures []string)
}

// Fields is a row type's table of accessors: key field and figure name to
// the function that reads it. Each row type declares one, once, beside the
// type, and implements Row with it.
type Fields[R any] struct {
	Keys    map[string]func(R) string
	Figures map[string]func(R) Value
}

// Key returns key field name of r, "" when the table has none.
func (f Fields[R]) Key(r R, name string) string {
	if get, ok := f.Keys[name]; ok {
		return get(r)
	}
	return ""
}

// Figure returns figure name of r and whether the table has it.
func (f Fields[R]) Figure(r R, name string) (Value, bool) {
	if get, ok := f.Figures[name]; ok {
		return get(r), true
	}
	return Value{}, false
}

// Names returns the key and figure names f can read, sorted.
func (f Fields[R]) Names() (keys, figures []string) {
	return slices.Sorted(maps.Keys(f.Keys)), slices.Sorted(maps.Keys(f.Figures))
}

// Count reads an integer field as a figure.
func Count[R any](get func(R) int) func(R) Value {
	return func(r R) Value { return Value{Nums: []float64{float64(get(r))}} }
}

// Number reads a float field as a figure.
func Number[R any](get func(R) float64) func(R) Value {
	return func(r R) Value { return Value{Nums: []float64{get(r)}} }
}

// PerSeed reads a per-seed field as a figure.
func PerSeed[R any](get func(R) []int) func(R) Value {
	return func(r R) Value {
		v := Value{Nums: make([]float64, 0, len(get(r)))}
		for _, x := range get(r) {
			v.Nums = append(v.Nums, float64(x))
		}
		return v
	}
}

// Text reads a string field as a figure in words.
func Text[R any](get func(R) string) func(R) Value {
	return func(r R) Value { return Value{Text: get(r)} }
}

// RowKey returns the values of a row's key fields that exp names, as published
// rows hold them; key fields the row has no value for are left out.
func RowKey(exp *Experiment, row Row) map[string]string {
	key := map[string]string{}
	for _, k := range exp.Key {
		if v := row.KeyOf(k); v != "" {
			key[k] = v
		}
	}
	return key
}

// describeValue writes our value of a figure as JSON writes it, for diffs.
func describeValue(v Value) string {
	switch {
	case v.Nums == nil:
		return v.Text
	case len(v.Nums) == 1:
		return strconv.FormatFloat(v.Nums[0], 'f', -1, 64)
	}
	return fmt.Sprint(v.Nums)
}
