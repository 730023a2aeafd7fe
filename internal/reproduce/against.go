package reproduce

import (
	"fmt"
	"strings"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// ReadAgainst reads the reproduction in file (a reproduced.json) that a
// reproduction of r is set against (Reproduced.Against), or, for a shard of
// it (shard), whose units the shard's are checked against (CheckShard): that
// must be a reproduction of r's parameters.
func (r Options) ReadAgainst(file string, shard bool) (*results.Reproduction, error) {
	data, err := results.ReadFile(file)
	if err != nil {
		return nil, err
	}
	other, err := results.ReadReproduction(file, data)
	if err != nil {
		return nil, err
	}
	if shard {
		if err := other.Checks(r.Config()); err != nil {
			return nil, fmt.Errorf("%s: a shard is checked against the reproduction that ran it: %v", file, err)
		}
	}
	return &other, nil
}

// Against sets the reproduction beside the verdicts of other, another
// reproduction (one made with --quick, say): its record holds their
// agreement, and its tables end with the figures the two judge apart.
func (r *Reproduced) Against(other results.Reproduction) {
	agreement := results.NewAgreement(r.Record, other)
	r.Record.Against = &agreement
	ours, theirs := "this run", "the other run"
	if r.Record.Replications != other.Replications {
		ours, theirs = report.Count(r.Record.Replications, "replication"), report.Count(other.Replications, "replication")
	}
	r.Tables = append(r.Tables, report.AgreementTable(agreement, ours, theirs))
}

// ShardRun is a shard of a reproduction as it ran, and, when it is checked
// against the reproduction it is a shard of, how its units held.
type ShardRun struct {
	Shard *results.ReproduceShard
	// against is the reproduction the units are checked against, read
	// from file; nil when they are not.
	against *results.Reproduction
	file    string
	check   results.UnitCheck
}

// CheckShard checks each unit the shard s ran against the digest other (a
// reproduction read from file, or nil for none) recorded for it. Its error
// says other is no reproduction s is a shard of.
func CheckShard(s *results.ReproduceShard, other *results.Reproduction, file string) (ShardRun, error) {
	run := ShardRun{Shard: s, against: other, file: file}
	if other == nil {
		return run, nil
	}
	var err error
	if run.check, err = other.CheckShard(s); err != nil {
		return run, fmt.Errorf("%s: %w", file, err)
	}
	return run, nil
}

// Line says what the shard ran and, when it was checked, how many of its
// units gave another result than the reproduction records.
func (r ShardRun) Line() string {
	runs := 0
	for _, st := range r.Shard.Rows {
		for _, j := range st.Jobs {
			runs += len(j)
		}
	}
	tail := "notesbench merge puts every shard together"
	if r.against != nil {
		tail = fmt.Sprintf("%s checked against %s, %d giving another result", report.Count(r.check.Checked, "unit"), r.file, len(r.check.Differ))
	}
	return fmt.Sprintf("reproduce, shard %s: %s of %s; %s", r.Shard.Shard, report.Count(runs, "unit"), report.Int(int64(r.Shard.Units)), tail)
}

// Err is the shard's failure against the reproduction it was checked
// against: a unit that gives another result, or no unit that could be
// checked. It is nil for a shard not checked.
func (r ShardRun) Err() error {
	switch {
	case r.against == nil:
		return nil
	case len(r.check.Differ) > 0:
		verb := "give"
		if len(r.check.Differ) == 1 {
			verb = "gives"
		}
		return fmt.Errorf("%s of shard %s %s another result than %s records: %s", report.Count(len(r.check.Differ), "unit"), r.Shard.Shard, verb, r.file, strings.Join(r.check.Differ, "; "))
	case r.check.Checked == 0:
		return fmt.Errorf("shard %s ran no unit whose result %s records (it records none of timings or of runs on the wall clock): a shard of fewer shards, or --only, holds some", r.Shard.Shard, r.file)
	}
	return nil
}
