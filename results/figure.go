package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FigureKind says what shape a published figure has.
type FigureKind int

// The figure kinds. The zero FigureKind marks a Figure that holds nothing.
const (
	// figureNone is the zero Figure: nothing was published.
	figureNone FigureKind = iota
	// FigurePoint is one number, written in JSON as a number: 300.
	FigurePoint
	// FigureRange is a published span such as "41–48 %", written in JSON as an
	// object: {"low": 0.41, "high": 0.48}.
	FigureRange
	// FigureSeeds is one number per published seed, in seed order, written in
	// JSON as an array: [71, 61, 63].
	FigureSeeds
	// FigureText is a verdict in words, written in JSON as a string: "ok".
	FigureText
)

// A Figure is one published value: a point, a range, a per-seed list or a text.
// Numbers keep the literal they were written with in published.json, so String
// and MarshalJSON show "0.070" as published rather than "0.07".
//
// The zero Figure holds nothing (Kind figureNone).
type Figure struct {
	kind FigureKind
	nums []float64
	lits []string
	text string
}

// PointFigure returns a point Figure holding v.
func PointFigure(v float64) Figure {
	return Figure{kind: FigurePoint, nums: []float64{v}, lits: []string{formatNum(v)}}
}

// RangeFigure returns a range Figure from low to high.
func RangeFigure(low, high float64) Figure {
	return Figure{kind: FigureRange, nums: []float64{low, high}, lits: []string{formatNum(low), formatNum(high)}}
}

// SeedsFigure returns a per-seed Figure with one value per published seed.
func SeedsFigure(vs ...float64) Figure {
	f := Figure{kind: FigureSeeds, nums: append([]float64(nil), vs...)}
	for _, v := range vs {
		f.lits = append(f.lits, formatNum(v))
	}
	return f
}

// TextFigure returns a text Figure holding s.
func TextFigure(s string) Figure {
	return Figure{kind: FigureText, text: s}
}

// Kind returns the shape of f.
func (f Figure) Kind() FigureKind { return f.kind }

// IsZero reports whether f holds nothing.
func (f Figure) IsZero() bool { return f.kind == figureNone }

// Value returns the number of a point Figure, and 0 for other kinds.
func (f Figure) Value() float64 {
	if f.kind != FigurePoint {
		return 0
	}
	return f.nums[0]
}

// Range returns the bounds of f: low and high of a range, the value twice for a
// point, the smallest and largest element of a per-seed list, and 0, 0 otherwise.
func (f Figure) Range() (low, high float64) {
	switch f.kind {
	case FigurePoint:
		return f.nums[0], f.nums[0]
	case FigureRange:
		return f.nums[0], f.nums[1]
	case FigureSeeds:
		if len(f.nums) == 0 {
			return 0, 0
		}
		low, high = f.nums[0], f.nums[0]
		for _, v := range f.nums[1:] {
			low, high = min(low, v), max(high, v)
		}
		return low, high
	}
	return 0, 0
}

// Midpoint returns the middle of f's Range: the value itself for a point.
func (f Figure) Midpoint() float64 {
	low, high := f.Range()
	return (low + high) / 2
}

// Seeds returns a copy of the per-seed values of f, and nil for other kinds.
func (f Figure) Seeds() []float64 {
	if f.kind != FigureSeeds {
		return nil
	}
	return append([]float64(nil), f.nums...)
}

// Text returns the text of a text Figure, and "" for other kinds.
func (f Figure) Text() string { return f.text }

// String returns f as published: "300", "1.41–1.48" (an en dash between the
// bounds), "71 / 61 / 63", the text itself, or "" for the zero Figure.
func (f Figure) String() string {
	switch f.kind {
	case FigurePoint:
		return f.lits[0]
	case FigureRange:
		return f.lits[0] + "–" + f.lits[1]
	case FigureSeeds:
		return strings.Join(f.lits, " / ")
	case FigureText:
		return f.text
	}
	return ""
}

// MarshalJSON writes f in the form UnmarshalJSON reads, numbers as written.
// The zero Figure is written as null.
func (f Figure) MarshalJSON() ([]byte, error) {
	switch f.kind {
	case FigurePoint:
		return []byte(f.lits[0]), nil
	case FigureRange:
		return []byte(`{"low":` + f.lits[0] + `,"high":` + f.lits[1] + `}`), nil
	case FigureSeeds:
		return []byte("[" + strings.Join(f.lits, ",") + "]"), nil
	case FigureText:
		return json.Marshal(f.text)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a figure: a number (point), an object with exactly the
// numbers "low" and "high", low ≤ high (range), a non-empty array of numbers
// (per seed) or a non-empty string (text). Anything else, null included, is an
// error.
func (f *Figure) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return errors.New("figure: empty")
	}
	var out Figure
	switch data[0] {
	case '"':
		out.kind = FigureText
		if err := json.Unmarshal(data, &out.text); err != nil {
			return fmt.Errorf("figure: %w", err)
		}
		if out.text == "" {
			return errors.New("figure: empty text")
		}
	case '[':
		var raws []json.RawMessage
		if err := strictDecode(data, &raws); err != nil {
			return fmt.Errorf("figure: per-seed list: %w", err)
		}
		if len(raws) == 0 {
			return errors.New("figure: per-seed list is empty")
		}
		out.kind = FigureSeeds
		if err := out.addNums(raws...); err != nil {
			return err
		}
	case '{':
		var r struct{ Low, High json.RawMessage }
		if err := strictDecode(data, &r); err != nil {
			return fmt.Errorf("figure: range: %w", err)
		}
		if r.Low == nil || r.High == nil {
			return errors.New("figure: range needs both low and high")
		}
		out.kind = FigureRange
		if err := out.addNums(r.Low, r.High); err != nil {
			return err
		}
		if out.nums[0] > out.nums[1] {
			return fmt.Errorf("figure: range low %s is above high %s", out.lits[0], out.lits[1])
		}
	default:
		out.kind = FigurePoint
		if err := out.addNums(data); err != nil {
			return fmt.Errorf("figure: want a number, range object, per-seed list or text, got %s", data)
		}
	}
	*f = out
	return nil
}

// addNums appends JSON numbers to f, keeping their literals. Anything that is
// not a bare JSON number (a quoted number, null, true) is an error.
func (f *Figure) addNums(raws ...json.RawMessage) error {
	for _, raw := range raws {
		lit := string(bytes.TrimSpace(raw))
		if lit == "" || (lit[0] != '-' && (lit[0] < '0' || lit[0] > '9')) {
			return fmt.Errorf("figure: %s is not a number", raw)
		}
		var n json.Number
		if err := strictDecode([]byte(lit), &n); err != nil {
			return fmt.Errorf("figure: %s is not a number", raw)
		}
		v, err := n.Float64()
		if err != nil {
			return fmt.Errorf("figure: %s is not a number", raw)
		}
		f.nums = append(f.nums, v)
		f.lits = append(f.lits, lit)
	}
	return nil
}

// strictDecode decodes data into v with numbers kept as json.Number and
// unknown object fields rejected.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// formatNum writes v in the shortest form that reads back as v.
func formatNum(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
