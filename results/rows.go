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
// turning a verdict into "no data".
type Row interface {
	// KeyOf returns the value of key field name as published rows hold it
	// ("note", "2"), or "" when the row has none (race's guard none has no
	// policy).
	KeyOf(name string) string
	// FigureOf returns figure name and whether the row carries it.
	FigureOf(name string) (Value, bool)
}

// fields is a row type's table of accessors: key field and figure name to the
// function that reads it.
type fields[R any] struct {
	keys    map[string]func(R) string
	figures map[string]func(R) Value
}

func (f fields[R]) key(r R, name string) string {
	if get, ok := f.keys[name]; ok {
		return get(r)
	}
	return ""
}

func (f fields[R]) figure(r R, name string) (Value, bool) {
	if get, ok := f.figures[name]; ok {
		return get(r), true
	}
	return Value{}, false
}

// names returns the key and figure names f can read, sorted.
func (f fields[R]) names() (keys, figures []string) {
	return slices.Sorted(maps.Keys(f.keys)), slices.Sorted(maps.Keys(f.figures))
}

// count reads an integer field as a figure.
func count[R any](get func(R) int) func(R) Value {
	return func(r R) Value { return Value{Nums: []float64{float64(get(r))}} }
}

// number reads a float field as a figure.
func number[R any](get func(R) float64) func(R) Value {
	return func(r R) Value { return Value{Nums: []float64{get(r)}} }
}

// perSeed reads a per-seed field as a figure.
func perSeed[R any](get func(R) []int) func(R) Value {
	return func(r R) Value {
		v := Value{Nums: make([]float64, 0, len(get(r)))}
		for _, x := range get(r) {
			v.Nums = append(v.Nums, float64(x))
		}
		return v
	}
}

// text reads a string field as a figure in words.
func text[R any](get func(R) string) func(R) Value {
	return func(r R) Value { return Value{Text: get(r)} }
}

// Accessors returns, for the experiment called name, the key fields and
// figures its rows can be read by, sorted; ok is false for an experiment
// without rows of its own. A test checks them against every key and figure of
// the published experiment.
func Accessors(name string) (keys, figures []string, ok bool) {
	f, ok := accessorTables[name]
	if !ok {
		return nil, nil, false
	}
	keys, figures = f.names()
	return keys, figures, true
}

// accessorTable is a row type's table of accessors, whatever the row type.
type accessorTable interface {
	names() (keys, figures []string)
}

// accessorTables holds every row type's accessor table by experiment name.
var accessorTables = map[string]accessorTable{
	"race":     raceFields,
	"tabs":     tabsFields,
	"fast":     fastFields,
	"create":   createFields,
	"sources":  sourcesFields,
	"refs":     refsFields,
	"outline":  outlineFields,
	"validate": validateFields,
	"bench":    benchFields,
}

// The accessor tables of every row type.
var (
	raceFields = fields[RaceRow]{
		keys: map[string]func(RaceRow) string{
			"guard":  func(r RaceRow) string { return r.Guard },
			"policy": func(r RaceRow) string { return r.Policy },
		},
		figures: map[string]func(RaceRow) Value{
			"lost":              count(func(r RaceRow) int { return r.Lost }),
			"lost_claude":       count(func(r RaceRow) int { return r.LostClaude }),
			"lost_human":        count(func(r RaceRow) int { return r.LostHuman }),
			"conflicts_claude":  count(func(r RaceRow) int { return r.ConflictsClaude }),
			"conflicts_human":   count(func(r RaceRow) int { return r.ConflictsHuman }),
			"max_tries":         count(func(r RaceRow) int { return r.MaxTries }),
			"mean_tries_claude": number(func(r RaceRow) float64 { return r.MeanTriesClaude }),
			"mean_tries_human":  number(func(r RaceRow) float64 { return r.MeanTriesHuman }),
			"retried_claude":    number(func(r RaceRow) float64 { return r.RetriedClaude }),
			"wall_s":            number(func(r RaceRow) float64 { return r.WallS }),
		},
	}
	tabsFields = fields[TabsRow]{
		keys: map[string]func(TabsRow) string{
			"guard": func(r TabsRow) string { return r.Guard },
		},
		figures: map[string]func(TabsRow) Value{
			"conflicts_claude": count(func(r TabsRow) int { return r.ConflictsClaude }),
			"writes_claude":    count(func(r TabsRow) int { return r.WritesClaude }),
			"conflicts_human":  count(func(r TabsRow) int { return r.ConflictsHuman }),
			"writes_human":     count(func(r TabsRow) int { return r.WritesHuman }),
			"lost":             count(func(r TabsRow) int { return r.Lost }),
		},
	}
	fastFields = fields[FastRow]{
		keys: map[string]func(FastRow) string{
			"version_format": func(r FastRow) string { return r.VersionFormat },
		},
		figures: map[string]func(FastRow) Value{
			"lost":           count(func(r FastRow) int { return r.Lost }),
			"intended":       count(func(r FastRow) int { return r.Intended }),
			"runs_with_loss": count(func(r FastRow) int { return r.RunsWithLoss }),
		},
	}
	createFields = fields[CreateRow]{
		keys: map[string]func(CreateRow) string{
			"table":      func(r CreateRow) string { return r.Table },
			"order":      func(r CreateRow) string { return r.Order },
			"key_policy": func(r CreateRow) string { return r.KeyPolicy },
		},
		figures: map[string]func(CreateRow) Value{
			"calls_sent":   perSeed(func(r CreateRow) []int { return r.CallsSent }),
			"tabs_created": perSeed(func(r CreateRow) []int { return r.TabsCreated }),
			"duplicates":   perSeed(func(r CreateRow) []int { return r.Duplicates }),
		},
	}
	sourcesFields = fields[SourcesRow]{
		keys: map[string]func(SourcesRow) string{
			"key_policy": func(r SourcesRow) string { return r.KeyPolicy },
		},
		figures: map[string]func(SourcesRow) Value{
			"saved":       count(func(r SourcesRow) int { return r.Saved }),
			"duplicates":  count(func(r SourcesRow) int { return r.Duplicates }),
			"per_session": number(func(r SourcesRow) float64 { return r.PerSession }),
			"browser_flagged": func(r SourcesRow) Value {
				if r.BrowserFlagged == nil {
					return Value{}
				}
				return Value{Nums: []float64{float64(*r.BrowserFlagged)}}
			},
		},
	}
	refsFields = fields[RefsRow]{
		keys: map[string]func(RefsRow) string{
			"k":   func(r RefsRow) string { return strconv.Itoa(r.K) },
			"ref": func(r RefsRow) string { return r.Ref },
		},
		figures: map[string]func(RefsRow) Value{
			"correct":              number(func(r RefsRow) float64 { return r.Correct }),
			"wrong":                number(func(r RefsRow) float64 { return r.Wrong }),
			"not_found":            number(func(r RefsRow) float64 { return r.NotFound }),
			"passed_version_check": number(func(r RefsRow) float64 { return r.PassedVersionCheck }),
		},
	}
	outlineFields = fields[OutlineRow]{
		keys: map[string]func(OutlineRow) string{
			"approach": func(r OutlineRow) string { return r.Approach },
		},
		figures: map[string]func(OutlineRow) Value{
			"writes":             count(func(r OutlineRow) int { return r.Writes }),
			"request_bytes":      count(func(r OutlineRow) int { return r.RequestBytes }),
			"conflicts_per_deck": number(func(r OutlineRow) float64 { return r.ConflictsPerDeck }),
			"expected_conflicts": number(func(r OutlineRow) float64 { return r.ExpectedConflicts }),
		},
	}
	validateFields = fields[ValidateRow]{
		keys: map[string]func(ValidateRow) string{
			"tool":    func(r ValidateRow) string { return r.Tool },
			"payload": func(r ValidateRow) string { return r.Payload },
		},
		figures: map[string]func(ValidateRow) Value{
			"minimal": text(func(r ValidateRow) string { return r.Minimal }),
			"full":    text(func(r ValidateRow) string { return r.Full }),
		},
	}
	benchFields = fields[BenchRow]{
		keys: map[string]func(BenchRow) string{
			"guard":   func(r BenchRow) string { return r.Guard },
			"writers": func(r BenchRow) string { return strconv.Itoa(r.Writers) },
		},
		figures: map[string]func(BenchRow) Value{
			"median_us":    number(func(r BenchRow) float64 { return r.MedianUS }),
			"p90_us":       number(func(r BenchRow) float64 { return r.P90US }),
			"p99_us":       number(func(r BenchRow) float64 { return r.P99US }),
			"p999_us":      number(func(r BenchRow) float64 { return r.P999US }),
			"max_us":       number(func(r BenchRow) float64 { return r.MaxUS }),
			"writes_per_s": number(func(r BenchRow) float64 { return r.WritesPerS }),
		},
	}
)

// KeyOf implements Row.
func (r RaceRow) KeyOf(name string) string { return raceFields.key(r, name) }

// FigureOf implements Row.
func (r RaceRow) FigureOf(name string) (Value, bool) { return raceFields.figure(r, name) }

// KeyOf implements Row.
func (r TabsRow) KeyOf(name string) string { return tabsFields.key(r, name) }

// FigureOf implements Row.
func (r TabsRow) FigureOf(name string) (Value, bool) { return tabsFields.figure(r, name) }

// KeyOf implements Row.
func (r FastRow) KeyOf(name string) string { return fastFields.key(r, name) }

// FigureOf implements Row.
func (r FastRow) FigureOf(name string) (Value, bool) { return fastFields.figure(r, name) }

// KeyOf implements Row.
func (r CreateRow) KeyOf(name string) string { return createFields.key(r, name) }

// FigureOf implements Row.
func (r CreateRow) FigureOf(name string) (Value, bool) { return createFields.figure(r, name) }

// KeyOf implements Row.
func (r SourcesRow) KeyOf(name string) string { return sourcesFields.key(r, name) }

// FigureOf implements Row.
func (r SourcesRow) FigureOf(name string) (Value, bool) { return sourcesFields.figure(r, name) }

// KeyOf implements Row.
func (r RefsRow) KeyOf(name string) string { return refsFields.key(r, name) }

// FigureOf implements Row.
func (r RefsRow) FigureOf(name string) (Value, bool) { return refsFields.figure(r, name) }

// KeyOf implements Row.
func (r OutlineRow) KeyOf(name string) string { return outlineFields.key(r, name) }

// FigureOf implements Row.
func (r OutlineRow) FigureOf(name string) (Value, bool) { return outlineFields.figure(r, name) }

// KeyOf implements Row.
func (r ValidateRow) KeyOf(name string) string { return validateFields.key(r, name) }

// FigureOf implements Row.
func (r ValidateRow) FigureOf(name string) (Value, bool) { return validateFields.figure(r, name) }

// KeyOf implements Row.
func (r BenchRow) KeyOf(name string) string { return benchFields.key(r, name) }

// FigureOf implements Row.
func (r BenchRow) FigureOf(name string) (Value, bool) { return benchFields.figure(r, name) }

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
