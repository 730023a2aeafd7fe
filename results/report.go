package results

import (
	"encoding/json"
	"fmt"
)

// Report is the whole outcome of one experiment command: what was run, what came
// out, the published figures it was compared with and the verdicts. Its JSON form
// is the --out file and the baseline format.
type Report struct {
	Experiment string `json:"experiment"`
	// Config holds every parameter of the run, seeds and clock included.
	Config any `json:"config"`
	// Rows are the experiment's table rows, with the keys of SPEC section 4.
	Rows any `json:"rows"`
	// Runs are the per-run results the rows were folded from.
	Runs any `json:"runs"`
	// Published holds the published tables the rows were compared with; empty
	// when the parameters differ from the published ones.
	Published []PubTable `json:"published"`
	// Replications is how many virtual-clock replications the verdicts rest on.
	Replications int       `json:"replications,omitempty"`
	Verdicts     []Verdict `json:"verdicts,omitempty"`
	Warnings     []string  `json:"warnings,omitempty"`
	Version      string    `json:"notesbench_version"`
}

// RowFields turns rows (a slice of row structs) into maps keyed by their JSON
// keys, so that figures can be looked up by name.
func RowFields(rows any) ([]map[string]any, error) {
	b, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("rows are not a list of objects: %w", err)
	}
	return out, nil
}

// RowKey returns the values of a row's key fields as strings, as published rows
// hold them.
func RowKey(exp *Experiment, row map[string]any) map[string]string {
	key := map[string]string{}
	for _, k := range exp.Key {
		if v, ok := row[k]; ok && v != "" && v != nil {
			key[k] = fmt.Sprint(v)
		}
	}
	return key
}

// CompareReplications judges every published figure of exp against our
// replications: reps[r] holds the rows of replication r, all replications with
// the same rows in the same order. A count or fraction is judged against its
// spread over the replications; a per-seed figure against the values of single
// runs; a text against ours; and a figure for which ratioOnly is true (nil:
// TimingKey) only as a ratio, because it depends on the machine or on inputs of
// ours, not on the mechanism measured.
//
// A published range ("every run took 9.6–10.5 s", "1.41–1.48 tries") spans
// single runs, so when runs is given — the rows of each single run, in the same
// shape as a replication — a range is judged against the spread of single runs
// instead of that of whole replications.
func CompareReplications(exp *Experiment, reps, runs [][]map[string]any, mass float64, ratioOnly func(figure string) bool) []Verdict {
	if ratioOnly == nil {
		ratioOnly = TimingKey
	}
	if len(reps) == 0 {
		return nil
	}
	var out []Verdict
	for i, row := range reps[0] {
		pub, ok := exp.Match(RowKey(exp, row))
		if !ok {
			continue
		}
		label := exp.Label(pub)
		for _, name := range exp.Figures {
			fig, ok := pub.Figure(name)
			if !ok {
				continue
			}
			from := reps
			if fig.Kind() == FigureRange && runs != nil {
				from = runs
			}
			var samples []float64
			for _, rep := range from {
				if i < len(rep) {
					samples = append(samples, numbers(rep[i][name])...)
				}
			}
			switch {
			case fig.Kind() == FigureText:
				out = append(out, JudgeText(name, label, fmt.Sprint(row[name]), fig))
			case fig.Kind() == FigureSeeds:
				out = append(out, JudgePerSeed(name, label, samples, fig, mass)...)
			case ratioOnly(name):
				out = append(out, JudgeRatio(name, label, samples, fig, mass))
			default:
				out = append(out, Judge(name, label, samples, fig, mass))
			}
		}
	}
	return out
}

// numbers returns the numbers a row field holds: one, or each of a per-seed list.
func numbers(v any) []float64 {
	switch v := v.(type) {
	case float64:
		return []float64{v}
	case []any:
		var out []float64
		for _, x := range v {
			if f, ok := x.(float64); ok {
				out = append(out, f)
			}
		}
		return out
	}
	return nil
}

// PublishedTables returns the tables of exp, for a report's Published field.
func PublishedTables(exp *Experiment) []PubTable {
	return append([]PubTable(nil), exp.Tables...)
}
