package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/plural"
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

// check says what is wrong with a shard read from a file, as ParseShard
// would of K/N.
func (s Shard) check() error {
	switch {
	case s.Count < 1 || s.Count > MaxShards:
		return fmt.Errorf("shard %s: N must be 1 to %d", s, MaxShards)
	case s.Index < 1 || s.Index > s.Count:
		return fmt.Errorf("shard %s: K must be 1 to %d", s, s.Count)
	}
	return nil
}

// jsonProblem says what is wrong with data, a file that did not decode with
// err, in the file's words rather than Go's: empty, cut short, not JSON, or
// a value of the wrong kind (history.JSONProblem).
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return "the file is empty"
	case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))):
		return "the JSON ends early: the file is cut short"
	case errors.As(err, &syn):
		return "not JSON (" + syn.Error() + ")"
	}
	return history.JSONProblem(err)
}

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
// has — its configuration the one the run resolved, every parameter as it
// ran, a server's choices included — which shard of how many and how many
// units the whole run has, how ours ran, how it departs from the published
// setup, and the parts the shard ran. notesbench merge reads the
// configuration back from it.
type ShardRecord struct {
	results.Report
	Shard       Shard    `json:"shard"`
	Units       int      `json:"units"`
	Setup       string   `json:"setup"`
	Differences []string `json:"differences"`
	Parts       []Part   `json:"parts"`
}

// runShard runs the units of j that shard owns and returns its outcome: a
// ShardRecord as its JSON, and a table of the units it ran.
func (d *descriptor[C, Row, Run]) runShard(ctx context.Context, j *runJob[C, Row, Run], shard Shard) (*Findings, error) {
	if err := j.execute(ctx, shard.owns); err != nil {
		return nil, err
	}
	parts, err := j.parts()
	if err != nil {
		return nil, err
	}
	rec := ShardRecord{Shard: shard, Units: j.units(), Setup: j.setup, Differences: nonNil(nonEmpty(j.differences)), Parts: parts}
	rec.Report = results.Report{Experiment: d.def.Name, Config: j.c, Rows: []Row{}, Runs: []Run{}, Version: j.opts.Version}.Complete()
	if j.plan.replications {
		rec.Replications = j.plan.n
	}
	return &Findings{Report: rec.Report, JSON: rec, Section: shardSection(d.def.Name, shard, parts, j.units(), rec.Setup)}, nil
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
	var configs []json.RawMessage
	for i, b := range data {
		var head struct {
			Experiment string          `json:"experiment"`
			Config     json.RawMessage `json:"config"`
			Shard      *Shard          `json:"shard"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, mergeErrf(files[i], "not a notesbench shard or history: %s", jsonProblem(b, err))
		}
		if head.Shard == nil || head.Shard.Count == 0 {
			return nil, mergeErrf(files[i], "not a shard: a result of notesbench --shard K/N")
		}
		var rec ShardRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, mergeErrf(files[i], "not a notesbench shard: %s", jsonProblem(b, err))
		}
		s.records, configs = append(s.records, rec), append(configs, head.Config)
	}
	shards := make([]Shard, len(s.records))
	for i, rec := range s.records {
		shards[i] = rec.Shard
	}
	if err := checkShardSet(files, shards, func(i int) error { return sameRun(s.records[0], s.records[i], configs[0], configs[i]) }); err != nil {
		return nil, err
	}
	s.config = configs[0]
	return s, nil
}

// checkShardSet checks that shards, one per file, are every shard of one run
// once: each a sound K/N, none given twice, none missing. same says how the
// shard of files[i] differs from the first in what was run (nil: it does
// not).
func checkShardSet(files []string, shards []Shard, same func(i int) error) error {
	if len(shards) == 0 {
		return &MergeError{Err: errors.New("no shards to merge")}
	}
	byIndex := map[int]string{}
	for i, sh := range shards {
		if err := sh.check(); err != nil {
			return &MergeError{File: files[i], Err: err}
		}
		if prev, ok := byIndex[sh.Index]; ok {
			return mergeErrf(files[i], "shard %s is given twice (also %s)", sh, prev)
		}
		byIndex[sh.Index] = files[i]
		if i > 0 {
			if err := same(i); err != nil {
				return &MergeError{File: files[i], Err: fmt.Errorf("not a shard of the same run as %s: %w", files[0], err)}
			}
		}
	}
	var missing []string
	for k := 1; k <= shards[0].Count; k++ {
		if _, ok := byIndex[k]; !ok {
			missing = append(missing, Shard{Index: k, Count: shards[0].Count}.String())
		}
	}
	if len(missing) > 0 {
		return &MergeError{Err: fmt.Errorf("shard %s missing: every shard of the run is needed", strings.Join(missing, ", "))}
	}
	return nil
}

// collectParts puts together the parts of the units offset to offset+units−1
// of a run, numbered from 0, each in its place: parts[i] are those the shard
// of files[i], shards[i], recorded. Every unit must be there once, in the
// shard that owns it.
func collectParts(files []string, shards []Shard, parts [][]Part, offset, units int) ([]Part, error) {
	out := make([]Part, units)
	seen := make([]bool, units)
	for i, ps := range parts {
		for _, p := range ps {
			if p.Unit < 0 || p.Unit >= units || seen[p.Unit] || !shards[i].owns(offset+p.Unit) {
				return nil, mergeErrf(files[i], "unit %d is not this shard's, or is given twice", p.Unit)
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

// Experiment names the experiment the shards ran.
func (s *Shards) Experiment() string { return s.records[0].Experiment }

// sameRun says how two shards differ in what was run, nil when they do not:
// the experiment, notesbench's version, the shard count, the configuration
// and how it departs from the published setup — how each ran
// (results.RunSetting) may differ.
func sameRun(a, b ShardRecord, ac, bc json.RawMessage) error {
	switch {
	case a.Experiment != b.Experiment:
		return fmt.Errorf("experiment %s, not %s", b.Experiment, a.Experiment)
	case a.Version != b.Version:
		return fmt.Errorf("notesbench %s, not %s", b.Version, a.Version)
	case a.Shard.Count != b.Shard.Count:
		return fmt.Errorf("one shard of %d, not of %d", b.Shard.Count, a.Shard.Count)
	case a.Units != b.Units:
		return fmt.Errorf("%s, not %d", plural.Count(b.Units, "unit"), a.Units)
	}
	diffs, err := results.ParameterDiffs(mustJSON(struct {
		Config json.RawMessage `json:"config"`
	}{ac}), json.RawMessage(bc), false, sim.FormatSeeds)
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		return fmt.Errorf("parameters differ: %s", strings.Join(diffs, "; "))
	}
	if a.Setup != b.Setup || !slices.Equal(a.Differences, b.Differences) {
		return fmt.Errorf("ran as %q, not %q", b.Setup, a.Setup)
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
func Merge(ds []Descriptor, s *Shards, version string) (*Findings, error) {
	d, err := Lookup(ds, s.Experiment())
	if err != nil {
		return nil, &MergeError{File: s.files[0], Err: err}
	}
	return d.merge(s, version)
}

func (d *descriptor[C, Row, Run]) merge(s *Shards, version string) (*Findings, error) {
	first := s.records[0]
	cfg, err := d.readConfig(s.files[0], s.config)
	if err != nil {
		return nil, err
	}
	j := d.newJob(cfg, sim.Runtime{}, Options{Replications: first.Replications, Version: version})
	j.config, j.setup, j.differences = s.config, first.Setup, first.Differences
	if j.units() != first.Units {
		return nil, mergeErrf(s.files[0], "%s, where its configuration makes %d", plural.Count(first.Units, "unit"), j.units())
	}
	shards, parts := make([]Shard, len(s.records)), make([][]Part, len(s.records))
	for i, rec := range s.records {
		shards[i], parts[i] = rec.Shard, rec.Parts
	}
	all, err := collectParts(s.files, shards, parts, 0, first.Units)
	if err != nil {
		return nil, err
	}
	if err := j.read(all); err != nil {
		return nil, fmt.Errorf("merging the shards: %w", err)
	}
	res, err := j.assemble()
	if err != nil {
		return nil, fmt.Errorf("merging the shards: %w", err)
	}
	return res.outcome, nil
}

// readConfig reads a run's configuration back from its record: the
// published setup with every field the record holds set as it ran. A record
// that does not read is bad input (*MergeError about file); one that reads into a
// configuration whose record is another is a failure of the merge: the rows
// are put together by it.
func (d *descriptor[C, Row, Run]) readConfig(file string, recorded json.RawMessage) (C, error) {
	cfg := d.def.Default()
	if err := json.Unmarshal(recorded, &cfg); err != nil {
		return cfg, mergeErrf(file, "the configuration recorded: %v", err)
	}
	var ours, theirs map[string]json.RawMessage
	if err := json.Unmarshal(mustJSON(cfg), &ours); err != nil {
		return cfg, err
	}
	json.Unmarshal(recorded, &theirs) // it read into cfg
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(theirs)) {
		if a, b := canonical(theirs[k]), canonical(ours[k]); a != b {
			diffs = append(diffs, fmt.Sprintf("%s %s, read back %s", k, a, b))
		}
	}
	if len(diffs) > 0 {
		return cfg, fmt.Errorf("the shards' configuration does not read back as they recorded it: %s", strings.Join(diffs, "; "))
	}
	return cfg, nil
}

// canonical writes a JSON value without spaces and with its objects' keys
// sorted, or "absent".
func canonical(v json.RawMessage) string {
	if v == nil {
		return "absent"
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber() // seeds beyond 2^53 stay whole
	if err := dec.Decode(&x); err != nil {
		return string(v)
	}
	return string(mustJSON(x))
}
