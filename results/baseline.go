package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/internal/plural"
)

// A Diff is one difference between a baseline JSON result and the current one.
// Baseline and Current hold the value at Path as compact JSON, numbers as
// written; one of them is "" when the key or element exists on one side only.
type Diff struct {
	Path     string
	Baseline string
	Current  string
}

// String returns d as one line, e.g. "rows[1].lost: baseline 0, now 3", with
// "absent" for a missing side and long values cut to 60 characters.
func (d Diff) String() string {
	path := d.Path
	if path == "" {
		path = "(top level)"
	}
	return fmt.Sprintf("%s: baseline %s, now %s", path, diffValue(d.Baseline), diffValue(d.Current))
}

// diffValue returns a value of a Diff for printing.
func diffValue(v string) string {
	if v == "" {
		return "absent"
	}
	if r := []rune(v); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return v
}

// compareJSON compares a stored JSON result (baseline) with the current one and
// returns every difference, in document order: objects by key in sorted order,
// arrays by index. Leaves are compared exactly as written, so 1 and 1.0 differ.
// A key present on one side only, or an array element past the other side's
// length, is one Diff with the other side absent; values of different JSON
// types are one Diff.
//
// Object keys for which ignore returns true are skipped at any depth, with
// their values (pass TimingKey to skip what depends on the machine); ignore
// may be nil. A side that is not one valid JSON value is an error naming it:
// "baseline: …" or "current: …".
func compareJSON(baseline, current []byte, ignore func(key string) bool) ([]Diff, error) {
	b, err := decodeJSON(baseline)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	c, err := decodeJSON(current)
	if err != nil {
		return nil, fmt.Errorf("current: %w", err)
	}
	if ignore == nil {
		ignore = func(string) bool { return false }
	}
	var diffs []Diff
	compareValue("", b, c, ignore, &diffs)
	return diffs, nil
}

// TimingKey reports whether a JSON key holds a figure that depends on the
// machine or the moment, not on the seeds: wall_s, writes_per_s, elapsed,
// notesbench_version, generated_at, and keys ending in _us, _ns or _ms.
func TimingKey(key string) bool {
	switch key {
	case "wall_s", "writes_per_s", "elapsed", "notesbench_version", "generated_at", "peer_ratio":
		return true
	}
	if key == "service_time_ns" { // a parameter, not a measurement
		return false
	}
	return strings.HasSuffix(key, "_us") || strings.HasSuffix(key, "_ns") || strings.HasSuffix(key, "_ms")
}

// decodeJSON decodes one JSON value, numbers kept as written.
func decodeJSON(data []byte) (any, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for the error text
		if len(bytes.TrimSpace(data)) == 0 {
			err = fmt.Errorf("empty input")
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// compareValue appends to diffs every difference between b and c at path.
func compareValue(path string, b, c any, ignore func(string) bool, diffs *[]Diff) {
	switch bv := b.(type) {
	case map[string]any:
		if cv, ok := c.(map[string]any); ok {
			keys := slices.Collect(maps.Keys(bv))
			for k := range cv {
				if _, ok := bv[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				if ignore(k) {
					continue
				}
				p := joinKey(path, k)
				bk, inB := bv[k]
				ck, inC := cv[k]
				switch {
				case !inB:
					*diffs = append(*diffs, Diff{Path: p, Current: compactJSON(ck)})
				case !inC:
					*diffs = append(*diffs, Diff{Path: p, Baseline: compactJSON(bk)})
				default:
					compareValue(p, bk, ck, ignore, diffs)
				}
			}
			return
		}
	case []any:
		if cv, ok := c.([]any); ok {
			for i := range max(len(bv), len(cv)) {
				p := path + "[" + strconv.Itoa(i) + "]"
				switch {
				case i >= len(bv):
					*diffs = append(*diffs, Diff{Path: p, Current: compactJSON(cv[i])})
				case i >= len(cv):
					*diffs = append(*diffs, Diff{Path: p, Baseline: compactJSON(bv[i])})
				default:
					compareValue(p, bv[i], cv[i], ignore, diffs)
				}
			}
			return
		}
	}
	// Leaves, and values of different types.
	if bs, cs := compactJSON(b), compactJSON(c); bs != cs {
		*diffs = append(*diffs, Diff{Path: path, Baseline: bs, Current: cs})
	}
}

// joinKey appends an object key to a path: rows[1].lost, or rows[1]["a.b"] for a
// key that is not a plain name.
func joinKey(path, key string) string {
	plain := key != "" && !strings.ContainsFunc(key, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	switch {
	case !plain:
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}

// compactJSON returns v as compact JSON without HTML escaping.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v) // unreachable for decoded JSON
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// compareBaseline compares the deterministic part of a result (rows and
// runs, timing fields left out) with a stored baseline's.
func compareBaseline(baseline []byte, rep Report) ([]Diff, error) {
	var stored struct {
		Rows json.RawMessage `json:"rows"`
		Runs json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(baseline, &stored); err != nil {
		return nil, err
	}
	want, err := json.Marshal(stored)
	if err != nil {
		return nil, err
	}
	got, err := json.Marshal(struct {
		Rows any `json:"rows"`
		Runs any `json:"runs"`
	}{rep.Rows, rep.Runs})
	if err != nil {
		return nil, err
	}
	return compareJSON(want, got, TimingKey)
}

// ParameterDiffs lists the parameters in which config departs from the
// configuration a baseline was recorded with: its figures cannot be compared
// then. How runs execute (runSetting) never counts; neither does the clock
// when realClock, since a real-clock run is checked against invariants and
// recorded ranges whatever clock the baseline ran on. Each difference is
// "key baseline vs ours", in JSON, but for lists of seeds, which seeds
// writes (as --seeds takes them, "1-5" rather than [1,2,3,4,5]; nil: JSON).
func ParameterDiffs(baseline []byte, config any, realClock bool, seeds func([]uint64) string) ([]string, error) {
	var stored struct {
		Config map[string]json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(baseline, &stored); err != nil {
		return nil, err
	}
	b, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	var ours map[string]json.RawMessage
	if err := json.Unmarshal(b, &ours); err != nil {
		return nil, err
	}
	keys := slices.Collect(maps.Keys(stored.Config))
	for k := range ours {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var diffs []string
	for _, key := range slices.Compact(keys) {
		if runSetting(key) || TimingKey(key) || (realClock && clockSetting(key)) {
			continue
		}
		if a, b := compactRaw(stored.Config[key]), compactRaw(ours[key]); a != b {
			if key == seedsKey && seeds != nil {
				a, b = seedList(stored.Config[key], a, seeds), seedList(ours[key], b, seeds)
			}
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", key, a, b))
		}
	}
	return diffs, nil
}

// seedsKey is the configuration field of a run's seeds.
const seedsKey = "seeds"

// seedList writes v, a JSON list of seeds, with seeds; raw, v as JSON, when
// it is no such list.
func seedList(v json.RawMessage, raw string, seeds func([]uint64) string) string {
	var list []uint64
	if v == nil || json.Unmarshal(v, &list) != nil || len(list) == 0 {
		return raw
	}
	return seeds(list)
}

// compactRaw writes a JSON value without spaces, or "absent".
func compactRaw(v json.RawMessage) string {
	if v == nil {
		return "absent"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

// checkReal checks a real-clock run's rows against a baseline: the
// invariants that hold on any clock, and every figure within the prediction
// interval the baseline's verdicts give it (when it was written with
// replications), at a false-alarm rate of gateFalseAlarm per run. note says
// what was checked.
func checkReal(baseline []byte, exp *Experiment, invariants []Invariant, rows []Row) (diffs []Diff, note string, err error) {
	var stored struct {
		Verdicts []Verdict `json:"verdicts"`
	}
	if err := json.Unmarshal(baseline, &stored); err != nil {
		return nil, "", err
	}
	diffs = CheckInvariants(invariants, rows)
	if exp != nil {
		ranges := CheckRanges(exp, stored.Verdicts, rows)
		diffs = append(diffs, ranges.Diffs...)
		note = "invariants, and " + ranges.Summary()
	}
	return diffs, note, nil
}

// A Baseline is a stored JSON result a run is compared with: the file it
// was read from (Path, as the user named it) and what it holds (JSON).
type Baseline struct {
	Path string
	JSON []byte
}

// ReadBaseline reads the baseline at path, which must be a JSON result of
// experiment: a file that does not read (ReadFile), that is no JSON result
// or that holds another experiment's result is an error saying so.
func ReadBaseline(path, experiment string) (*Baseline, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		Experiment string `json:"experiment"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s is not a notesbench JSON result: %v", path, err)
	}
	if head.Experiment != experiment {
		return nil, fmt.Errorf("%s holds a %q result, not %s", path, head.Experiment, experiment)
	}
	return &Baseline{Path: path, JSON: b}, nil
}

// CheckParameters says why a run of config cannot be compared with the
// baseline: it was recorded with other parameters (ParameterDiffs, whose
// realClock and seeds these are). nil means it can.
func (b *Baseline) CheckParameters(config any, realClock bool, seeds func([]uint64) string) error {
	diffs, err := ParameterDiffs(b.JSON, config, realClock, seeds)
	if err != nil {
		return fmt.Errorf("%s: %v", b.Path, err)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s was recorded with other parameters: %s", b.Path, strings.Join(diffs, "; "))
	}
	return nil
}

// Check compares a run with the baseline: its rows and runs exactly, timing
// fields left out, or, for a run on the real clock (realClock), by the
// invariants of its rows and the ranges the baseline's verdicts give its
// figures. A figure that differs is a *Regression; note says what a
// real-clock check checked, once it passed. Any other error is a baseline
// that cannot be compared, naming its file.
func (b *Baseline) Check(rep Report, realClock bool, invariants []Invariant, rows []Row) (note string, err error) {
	var diffs []Diff
	if realClock {
		exp, _ := Lookup(rep.Experiment)
		diffs, note, err = checkReal(b.JSON, exp, invariants, rows)
		if note != "" {
			note = "real clock against " + b.Path + ": " + note
		}
	} else {
		diffs, err = compareBaseline(b.JSON, rep)
	}
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: %v", b.Path, err)
	case len(diffs) > 0:
		return "", &Regression{Path: b.Path, Diffs: diffs, Note: note}
	}
	return note, nil
}

// Regression is a run that differs from its baseline at Path: the figures
// that differ, and what the check was when it was not exact (Note: the
// real-clock gate's intervals and false-alarm rate).
type Regression struct {
	Path  string
	Diffs []Diff
	Note  string
}

func (e *Regression) Error() string {
	verb := "differ"
	if len(e.Diffs) == 1 {
		verb = "differs"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "regression: %s %s from %s", plural.Count(len(e.Diffs), "figure"), verb, e.Path)
	for _, d := range e.Diffs {
		b.WriteString("\n  " + d.String())
	}
	if e.Note != "" {
		b.WriteString("\n  (" + e.Note + ")")
	}
	return b.String()
}
