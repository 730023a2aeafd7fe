package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// A Shard is one of Count equal shares of a run's work, Index from 1 to
// Count. The work is cut into units — the main run of one seed (or the
// whole main run, for an experiment that runs one seed or none), and each
// seed of the replications behind the verdicts — numbered in that order,
// and shard k runs the units u with u mod Count = k − 1: the same units
// whatever the machine, the order or the parallelism, and no shard more
// than one unit more than another. notesbench merge puts the shards'
// results back together into the result of the whole run.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// MaxShards bounds Shard.Count.
const MaxShards = 10_000

// ParseShard reads a shard as K/N: "2/4".
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("%q is not K/N (such as 2/4)", s)
	case ni < 1 || ni > MaxShards:
		return Shard{}, fmt.Errorf("%q: N must be 1 to %d", s, MaxShards)
	case ki < 1 || ki > ni:
		return Shard{}, fmt.Errorf("%q: K must be 1 to %d", s, ni)
	}
	return Shard{Index: ki, Count: ni}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// owns reports whether unit u is the shard's.
func (s Shard) owns(u int) bool { return u%s.Count == s.Index-1 }

// Part is one unit a shard ran: its number, whether it is a replication
// seed, its seeds, and the rows, runs and facts that run gave.
type Part struct {
	Unit        int             `json:"unit"`
	Replication bool            `json:"replication"`
	Seeds       []uint64        `json:"seeds"`
	Rows        json.RawMessage `json:"rows"`
	Runs        json.RawMessage `json:"runs"`
	Facts       []string        `json:"facts"`
}

// ShardRecord is the JSON result of one shard: the envelope every result
// has, which shard of how many and how many units the whole run has, what
// notesbench merge needs to put the run together again — the parameters
// given, how ours ran, how it departs from the published setup — and the
// parts the shard ran.
type ShardRecord struct {
	results.Report
	Shard       Shard             `json:"shard"`
	Units       int               `json:"units"`
	Params      map[string]string `json:"params"`
	Setup       string            `json:"setup"`
	Differences []string          `json:"differences"`
	Parts       []Part            `json:"parts"`
}

// runShard runs the units of c that opts.Shard owns and returns its outcome:
// a ShardRecord as its JSON, and a table of the units it ran.
func (d *descriptor[C, Row, Run]) runShard(ctx context.Context, c C, opts Options) (*Outcome, error) {
	shard := opts.Shard
	opts.Shard = Shard{}
	j := d.newJob(c, opts)
	parts, err := j.execute(ctx, shard.owns)
	if err != nil {
		return nil, err
	}
	rec := ShardRecord{Shard: shard, Units: j.units(), Params: opts.Params, Setup: j.setup,
		Differences: nonNil(nonEmpty(j.differences)), Parts: parts}
	if rec.Params == nil {
		rec.Params = map[string]string{}
	}
	rec.Report = results.Report{Experiment: d.def.Name, Config: c, Rows: []Row{}, Runs: []Run{}, Version: opts.Version}.Complete()
	if j.plan.replications {
		rec.Replications = j.plan.n
	}
	return &Outcome{Report: rec.Report, JSON: rec, Section: shardSection(d.def.Name, shard, parts, j.units(), rec.Setup)}, nil
}

// shardSection is the table a shard prints: the units it ran.
func shardSection(name string, shard Shard, parts []Part, units int, setup string) report.Section {
	t := report.Table{Title: fmt.Sprintf("%s, shard %s: %s of %s", name, shard, report.Count(len(parts), "unit"), report.Int(int64(units))),
		Header: []string{"Unit", "Seeds", "Replication"}, Keys: 1,
		Notes: []string{"ours: " + setup, "notesbench merge puts the results of every shard together into the result of the whole run"}}
	for _, part := range parts {
		t.Rows = append(t.Rows, []string{strconv.Itoa(part.Unit), sim.FormatSeeds(part.Seeds), strconv.FormatBool(part.Replication)})
	}
	return report.Section{Main: []report.Table{t}}
}

// nonEmpty drops the empty strings of ss.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// A MergeError is a set of shards that cannot be merged: a file that is no
// shard, a shard missing or given twice, shards of different runs.
type MergeError struct {
	File string
	Err  error
}

func (e *MergeError) Error() string {
	if e.File == "" {
		return e.Err.Error()
	}
	return e.File + ": " + e.Err.Error()
}

func (e *MergeError) Unwrap() error { return e.Err }

// mergeErrf returns a *MergeError about file.
func mergeErrf(file, format string, args ...any) error {
	return &MergeError{File: file, Err: fmt.Errorf(format, args...)}
}

// Shards are the shards of one run, read and checked: every shard of the run
// once, all of the same experiment, parameters and notesbench version.
type Shards struct {
	records []ShardRecord
	files   []string
	config  json.RawMessage
}

// ReadShards reads the shards in data, one file each (files name them in
// errors), and checks they make one whole run.
func ReadShards(files []string, data [][]byte) (*Shards, error) {
	s := &Shards{files: files}
	byIndex := map[int]string{}
	for i, b := range data {
		var head struct {
			Experiment string          `json:"experiment"`
			Config     json.RawMessage `json:"config"`
			Shard      *Shard          `json:"shard"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, mergeErrf(files[i], "not a notesbench result (%v): truncated, or not JSON", err)
		}
		if head.Shard == nil || head.Shard.Count == 0 {
			return nil, mergeErrf(files[i], "not a shard: a result of notesbench --shard K/N")
		}
		var rec ShardRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, mergeErrf(files[i], "not a shard of notesbench: %v", err)
		}
		if prev, ok := byIndex[rec.Shard.Index]; ok {
			return nil, mergeErrf(files[i], "shard %s is given twice (also %s)", rec.Shard, prev)
		}
		byIndex[rec.Shard.Index] = files[i]
		if i == 0 {
			s.config = head.Config
		} else if err := sameRun(s.records[0], rec, s.config, head.Config); err != nil {
			return nil, &MergeError{File: files[i], Err: fmt.Errorf("not a shard of the same run as %s: %w", files[0], err)}
		}
		s.records = append(s.records, rec)
	}
	if len(s.records) == 0 {
		return nil, &MergeError{Err: errors.New("no shards to merge")}
	}
	var missing []string
	for k := 1; k <= s.records[0].Shard.Count; k++ {
		if _, ok := byIndex[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, s.records[0].Shard.Count))
		}
	}
	if len(missing) > 0 {
		return nil, &MergeError{Err: fmt.Errorf("shard %s missing: every shard of the run is needed", strings.Join(missing, ", "))}
	}
	return s, nil
}

// Experiment names the experiment the shards ran.
func (s *Shards) Experiment() string { return s.records[0].Experiment }

// sameRun says how two shards differ in what was run, nil when they do not:
// the experiment, notesbench's version, the shard count, the parameters
// given and the configuration — how each ran (results.RunSetting) may
// differ.
func sameRun(a, b ShardRecord, ac, bc json.RawMessage) error {
	switch {
	case a.Experiment != b.Experiment:
		return fmt.Errorf("experiment %s, not %s", b.Experiment, a.Experiment)
	case a.Version != b.Version:
		return fmt.Errorf("notesbench %s, not %s", b.Version, a.Version)
	case a.Shard.Count != b.Shard.Count:
		return fmt.Errorf("one of %d shards, not %d", b.Shard.Count, a.Shard.Count)
	case a.Units != b.Units:
		return fmt.Errorf("%d units, not %d", b.Units, a.Units)
	case !maps.Equal(a.Params, b.Params):
		return fmt.Errorf("parameters %v, not %v", b.Params, a.Params)
	case a.Setup != b.Setup || !slices.Equal(a.Differences, b.Differences):
		return fmt.Errorf("ran as %q, not %q", b.Setup, a.Setup)
	}
	diffs, err := results.ParameterDiffs(mustJSON(struct {
		Config json.RawMessage `json:"config"`
	}{ac}), json.RawMessage(bc), false)
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		return fmt.Errorf("other parameters: %s", strings.Join(diffs, "; "))
	}
	return nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Merge puts the shards back together into the outcome of the whole run:
// the same rows, runs, verdicts and tables as the run would have given, its
// configuration as the first shard recorded it. ds are the experiments the
// shards may be of.
func Merge(ds []Descriptor, s *Shards, version string) (*Outcome, error) {
	d, err := Lookup(ds, s.Experiment())
	if err != nil {
		return nil, &MergeError{File: s.files[0], Err: err}
	}
	return d.merge(s, version)
}

func (d *descriptor[C, Row, Run]) merge(s *Shards, version string) (*Outcome, error) {
	first := s.records[0]
	in := d.New().(*instance[C, Row, Run])
	given := func(name string) bool { _, ok := first.Params[name]; return ok }
	for _, p := range in.params {
		if raw, ok := first.Params[p.Name]; ok {
			if err := p.Set(raw); err != nil {
				return nil, mergeErrf(s.files[0], "parameter %s: %v", p.Name, err)
			}
		}
	}
	if err := in.Finish(given); err != nil {
		return nil, mergeErrf(s.files[0], "%v", err)
	}
	j := d.newJob(in.cfg, Options{Replications: first.Replications, Version: version})
	j.config, j.setup, j.differences = s.config, first.Setup, first.Differences
	if j.units() != first.Units {
		return nil, mergeErrf(s.files[0], "%d units, where its parameters make %d", first.Units, j.units())
	}
	parts, err := s.parts(func(r ShardRecord) []Part { return r.Parts }, first.Units)
	if err != nil {
		return nil, err
	}
	res, err := j.assemble(parts)
	if err != nil {
		return nil, mergeErrf("", "%v", err)
	}
	return res.outcome, nil
}

// parts collects the parts of every shard, each in its place, checking that
// every one of units is there once and in the shard that owns it.
func (s *Shards) parts(of func(ShardRecord) []Part, units int) ([]Part, error) {
	out := make([]Part, units)
	seen := make([]bool, units)
	for i, rec := range s.records {
		for _, p := range of(rec) {
			if p.Unit < 0 || p.Unit >= units || seen[p.Unit] || !rec.Shard.owns(p.Unit) {
				return nil, mergeErrf(s.files[i], "unit %d is not this shard's, or is given twice", p.Unit)
			}
			out[p.Unit], seen[p.Unit] = p, true
		}
	}
	for u, ok := range seen {
		if !ok {
			return nil, mergeErrf("", "unit %d of %d is in no shard: a shard was cut short", u, units)
		}
	}
	return out, nil
}
