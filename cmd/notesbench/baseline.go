package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// regressionError is a run that differs from its baseline: exit code 1.
type regressionError struct {
	path  string
	diffs []results.Diff
	// note, when set, says what the check was (the real-clock gate's
	// intervals and false-alarm rate).
	note string
}

func (e *regressionError) Error() string {
	var b strings.Builder
	verb := "differ"
	if len(e.diffs) == 1 {
		verb = "differs"
	}
	fmt.Fprintf(&b, "regression: %s %s from %s", report.Count(len(e.diffs), "figure"), verb, e.path)
	for _, d := range e.diffs {
		b.WriteString("\n  " + d.String())
	}
	if e.note != "" {
		b.WriteString("\n  (" + e.note + ")")
	}
	return b.String()
}

// compareBaseline compares the deterministic part of a result (rows and runs,
// timing fields left out) with a stored baseline recorded with the same
// parameters.
func compareBaseline(path string, baseline []byte, rep results.Report) error {
	var stored struct {
		Config json.RawMessage `json:"config"`
		Rows   json.RawMessage `json:"rows"`
		Runs   json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(baseline, &stored); err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	want, err := json.Marshal(struct {
		Rows json.RawMessage `json:"rows"`
		Runs json.RawMessage `json:"runs"`
	}{stored.Rows, stored.Runs})
	if err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	got, err := json.Marshal(struct {
		Rows any `json:"rows"`
		Runs any `json:"runs"`
	}{rep.Rows, rep.Runs})
	if err != nil {
		return err
	}
	diffs, err := results.CompareJSON(want, got, results.TimingKey)
	if err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	if len(diffs) > 0 {
		return &regressionError{path: path, diffs: diffs}
	}
	return nil
}

// checkParameters returns a usage error when the baseline, if any, was
// recorded with other parameters than config: its figures cannot be compared.
// It runs before the experiment, so a mismatch costs nothing. How runs execute
// (results.RunSetting) never counts; neither does the clock on the real clock,
// where a run is checked against invariants and recorded ranges whatever
// clock the baseline ran on.
func (o *outFlags) checkParameters(config any) error {
	if o.baselineJSON == nil {
		return nil
	}
	var stored struct {
		Config map[string]json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(o.baselineJSON, &stored); err != nil {
		return usagef("--baseline", "%s: %v", o.baseline, err)
	}
	b, err := json.Marshal(config)
	if err != nil {
		return err
	}
	var ours map[string]json.RawMessage
	if err := json.Unmarshal(b, &ours); err != nil {
		return err
	}
	var diffs []string
	for _, key := range slices.Sorted(maps.Keys(mergeKeys(stored.Config, ours))) {
		if results.RunSetting(key) || results.TimingKey(key) || (o.realClock && results.ClockSetting(key)) {
			continue
		}
		if a, b := compact(stored.Config[key]), compact(ours[key]); a != b {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", key, a, b))
		}
	}
	if len(diffs) > 0 {
		return usagef("--baseline", "%s was recorded with other parameters: %s", o.baseline, strings.Join(diffs, "; "))
	}
	return nil
}

// mergeKeys returns a set of the keys of a and b.
func mergeKeys(a, b map[string]json.RawMessage) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// compact writes a JSON value without spaces, or "absent".
func compact(v json.RawMessage) string {
	if v == nil {
		return "absent"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

// checkRealBaseline checks a real-clock run against a baseline: the invariants
// that hold on any clock, and every figure within the prediction interval the
// baseline's verdicts give it (when it was written with replications), at a
// false-alarm rate of results.GateFalseAlarm per run, which it prints on
// stderr.
func checkRealBaseline[R results.Row](stderr io.Writer, path string, baseline []byte, rep results.Report, rows []R) error {
	var stored struct {
		Config   json.RawMessage   `json:"config"`
		Verdicts []results.Verdict `json:"verdicts"`
	}
	if err := json.Unmarshal(baseline, &stored); err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	diffs := results.CheckInvariants(rep.Experiment, rows)
	var note string
	if exp, ok := results.Lookup(rep.Experiment); ok {
		ranges := results.CheckRanges(exp, stored.Verdicts, rows)
		diffs = append(diffs, ranges.Diffs...)
		note = "real clock against " + path + ": invariants, and " + ranges.Summary()
	}
	if len(diffs) > 0 {
		return &regressionError{path: path, diffs: diffs, note: note}
	}
	if note != "" {
		fmt.Fprintln(stderr, "notesbench: baseline: "+note)
	}
	return nil
}
