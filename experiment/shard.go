package experiment

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// runShard runs the units of j that shard owns and returns its outcome: a
// results.ShardRecord as its JSON, and a table of the units it ran.
func (d *descriptor[C, Row, Run]) runShard(ctx context.Context, j *runJob[C, Row, Run], shard results.Shard) (*Findings, error) {
	if err := j.Execute(ctx, shard.Owns); err != nil {
		return nil, err
	}
	parts, err := j.Parts()
	if err != nil {
		return nil, err
	}
	rec := results.ShardRecord{Shard: shard, Units: j.Units(), Setup: j.setup, Differences: NonNil(nonEmpty(j.differences)), Parts: parts}
	rec.Report = results.Report{Experiment: d.def.Name, Config: j.c, Rows: []Row{}, Runs: []Run{}, Version: j.opts.Version}.Complete()
	if j.plan.replications {
		rec.Replications = j.plan.n
	}
	return &Findings{Report: rec.Report, JSON: rec, Section: shardSection(d.def.Name, shard, parts, j.Units(), rec.Setup)}, nil
}

// shardSection is the table a shard prints: the units it ran.
func shardSection(name string, shard results.Shard, parts []results.Part, units int, setup string) report.Section {
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

// Merge puts the shards back together into the outcome of the whole run:
// the same rows, runs, verdicts and tables as the run would have given, its
// configuration as the first shard recorded it. ds are the experiments the
// shards may be of.
func Merge(ds []Descriptor, s *results.Shards, version string) (*Findings, error) {
	if len(s.Records) == 0 || len(s.Files) != len(s.Records) {
		return nil, &results.MergeError{Err: errors.New("no shards to merge: read them with results.ReadShards")}
	}
	d, err := Lookup(ds, s.Experiment())
	if err != nil {
		return nil, &results.MergeError{File: s.Files[0], Err: err}
	}
	return d.merge(s, version)
}

func (d *descriptor[C, Row, Run]) merge(s *results.Shards, version string) (*Findings, error) {
	first := s.Records[0]
	cfg := d.def.Default()
	if err := s.ReadConfig(&cfg); err != nil {
		return nil, err
	}
	j := d.newJob(cfg, sim.Runtime{}, Options{Replications: first.Replications, Version: version})
	j.config, j.setup, j.differences = s.Config, first.Setup, first.Differences
	if j.Units() != first.Units {
		return nil, results.MergeErrorf(s.Files[0], "%s, where its configuration makes %d", plural.Count(first.Units, "unit"), j.Units())
	}
	all, err := s.Parts()
	if err != nil {
		return nil, err
	}
	if err := j.Read(all); err != nil {
		return nil, fmt.Errorf("merging the shards: %w", err)
	}
	res, err := j.Assemble()
	if err != nil {
		return nil, fmt.Errorf("merging the shards: %w", err)
	}
	return res.Findings, nil
}
