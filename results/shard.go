package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/internal/jsonerr"
	"github.com/notesbench/notesbench/internal/plural"
)

// A Shard is one of Count equal shares of a run's work, Index from 1 to
// Count. The work is cut into units — the main run of one seed (or the
// whole main run, for an experiment that runs one seed or none), and each
// seed of the replications behind the verdicts — numbered in that order,
// and shard k runs the units u with u mod Count = k − 1 (Owns): the same
// units whatever the machine, the order or the parallelism, and no shard
// more than one unit more than another. notesbench merge puts the shards'
// results back together into the result of the whole run.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// MaxShards bounds Shard.Count.
const MaxShards = 10_000

// ParseShard reads a shard as K/N ("2/4"), K from 1 to N, or by its index
// as index=I/N, I from 0 to N-1, as a Kubernetes Indexed Job numbers its
// pods: index=1/4 is 2/4.
func ParseShard(s string) (Shard, error) {
	rest, byIndex := strings.CutPrefix(s, "index=")
	k, n, ok := strings.Cut(rest, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	form, name, first := "K/N (such as 2/4)", "K", 1
	if byIndex {
		form, name, first = "index=I/N (such as index=1/4)", "I", 0
	}
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("%q is not %s", s, form)
	case ni < 1 || ni > MaxShards:
		return Shard{}, fmt.Errorf("%q: N must be 1 to %d", s, MaxShards)
	case ki < first || ki > ni-1+first:
		return Shard{}, fmt.Errorf("%q: %s must be %d to %d", s, name, first, ni-1+first)
	}
	return Shard{Index: ki + 1 - first, Count: ni}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether unit u is the shard's.
func (s Shard) Owns(u int) bool { return u%s.Count == s.Index-1 }

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

// Digest is a fingerprint of what the unit gave — whether it is a
// replication seed, its seeds, rows, runs and facts, whatever the spacing
// and key order of their JSON —: 16 hex digits of their SHA-256. A unit run
// again on the virtual clock gives the same digest on any machine, which is
// how a reproduction's units are checked against a committed one without
// keeping every unit's results (Reproduction.Units).
func (p Part) Digest() string {
	seeds, _ := json.Marshal(p.Seeds)
	facts, _ := json.Marshal(p.Facts)
	h := sha256.New()
	fmt.Fprintf(h, "%t\n%s\n%s\n%s\n%s\n", p.Replication, seeds, canonical(p.Rows), canonical(p.Runs), facts)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ShardRecord is the JSON result of one shard: the envelope every result
// has — its configuration the one the run resolved, every parameter as it
// ran, a server's choices included — which shard of how many and how many
// units the whole run has, how ours ran, how it departs from the published
// setup, and the parts the shard ran. notesbench merge reads the
// configuration back from it.
type ShardRecord struct {
	Report
	Shard       Shard    `json:"shard"`
	Units       int      `json:"units"`
	Setup       string   `json:"setup"`
	Differences []string `json:"differences"`
	Parts       []Part   `json:"parts"`
}

// ReproduceShard is the JSON result of one shard of a reproduction: the
// envelope every result has, which shard of how many, and the parts of every
// step's jobs it ran, for notesbench merge.
type ReproduceShard struct {
	Experiment string          `json:"experiment"`
	Config     ReproduceConfig `json:"config"`
	Rows       []ShardStep     `json:"rows"`
	Shard      Shard           `json:"shard"`
	Units      int             `json:"units"`
	Command    string          `json:"command"`
	Warnings   []string        `json:"warnings"`
	Version    string          `json:"notesbench_version"`
}

// ShardStep is a step of a reproduction in a shard: the parts of each of
// its jobs the shard ran.
type ShardStep struct {
	Experiment string   `json:"experiment"`
	Jobs       [][]Part `json:"jobs"`
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

// MergeErrorf returns a *MergeError about file.
func MergeErrorf(file, format string, args ...any) error {
	return &MergeError{File: file, Err: fmt.Errorf(format, args...)}
}

// Shards are the shards of one run, read and checked: every shard of the
// run once, all of the same experiment, parameters and notesbench version.
// Records are in the order of Files, the files they were read from; Config
// is the configuration the first recorded, as it recorded it.
type Shards struct {
	Records []ShardRecord
	Files   []string
	Config  json.RawMessage
}

// ReadShards reads the shards in data, one file each (files name them in
// errors), and checks they make one whole run; seeds writes a list of seeds
// as --seeds takes it, for the parameters in which two shards differ.
func ReadShards(files []string, data [][]byte, seeds func([]uint64) string) (*Shards, error) {
	s := &Shards{Files: files}
	var configs []json.RawMessage
	for i, b := range data {
		var head struct {
			Experiment string          `json:"experiment"`
			Config     json.RawMessage `json:"config"`
			Shard      *Shard          `json:"shard"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, MergeErrorf(files[i], "not a notesbench shard or history: %s", jsonerr.DescribeFile(b, err))
		}
		if head.Shard == nil || head.Shard.Count == 0 {
			return nil, MergeErrorf(files[i], "not a shard: a result of notesbench --shard K/N")
		}
		var rec ShardRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, MergeErrorf(files[i], "not a notesbench shard: %s", jsonerr.DescribeFile(b, err))
		}
		s.Records, configs = append(s.Records, rec), append(configs, head.Config)
	}
	shards := make([]Shard, len(s.Records))
	for i, rec := range s.Records {
		shards[i] = rec.Shard
	}
	if err := checkShardSet(files, shards, func(i int) error {
		return sameRun(s.Records[0], s.Records[i], configs[0], configs[i], seeds)
	}); err != nil {
		return nil, err
	}
	s.Config = configs[0]
	return s, nil
}

// Experiment names the experiment the shards ran.
func (s *Shards) Experiment() string { return s.Records[0].Experiment }

// ReadConfig reads the configuration the shards recorded into cfg, which
// holds the published setup: every field the record holds is set as it ran.
// A record that does not read is bad input (*MergeError about the first
// file); one that reads into a configuration whose record is another is a
// failure of the merge, which puts the rows together by it.
func (s *Shards) ReadConfig(cfg any) error {
	if err := json.Unmarshal(s.Config, cfg); err != nil {
		return MergeErrorf(s.Files[0], "the configuration recorded: %v", err)
	}
	var ours, theirs map[string]json.RawMessage
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &ours); err != nil {
		return err
	}
	json.Unmarshal(s.Config, &theirs) // it read into cfg
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(theirs)) {
		if a, b := canonical(theirs[k]), canonical(ours[k]); a != b {
			diffs = append(diffs, fmt.Sprintf("%s %s, read back %s", k, a, b))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("the shards' configuration does not read back as they recorded it: %s", strings.Join(diffs, "; "))
	}
	return nil
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
	b, _ := json.Marshal(x)
	return string(b)
}

// Parts puts together the parts of every unit of the run, each in its place,
// checking that every unit is there once, in the shard that owns it.
func (s *Shards) Parts() ([]Part, error) {
	shards, parts := make([]Shard, len(s.Records)), make([][]Part, len(s.Records))
	for i, rec := range s.Records {
		shards[i], parts[i] = rec.Shard, rec.Parts
	}
	return CollectParts(s.Files, shards, parts, 0, s.Records[0].Units)
}

// ReadReproduceShards reads the shards of a reproduction in data, one file
// each (files name them in errors), and checks they make one whole
// reproduction: every shard once, of the same parameters and notesbench
// version.
func ReadReproduceShards(files []string, data [][]byte) ([]ReproduceShard, error) {
	recs := make([]ReproduceShard, len(data))
	shards := make([]Shard, len(data))
	for i, b := range data {
		if err := json.Unmarshal(b, &recs[i]); err != nil || recs[i].Experiment != "reproduce" || recs[i].Shard.Count == 0 {
			return nil, MergeErrorf(files[i], "not a shard of notesbench reproduce --shard K/N")
		}
		shards[i] = recs[i].Shard
	}
	err := checkShardSet(files, shards, func(i int) error {
		a, rec := recs[0], recs[i]
		switch {
		case rec.Version != a.Version:
			return fmt.Errorf("notesbench %s, not %s", rec.Version, a.Version)
		case rec.Shard.Count != a.Shard.Count || rec.Units != a.Units:
			return fmt.Errorf("one of %d shards of %d units, not %d of %d", rec.Shard.Count, rec.Units, a.Shard.Count, a.Units)
		case rec.Config.Replications != a.Config.Replications || rec.Config.Real != a.Config.Real || !slices.Equal(rec.Config.Only, a.Config.Only):
			return errors.New("other parameters")
		}
		return nil
	})
	return recs, err
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
			return MergeErrorf(files[i], "shard %s is given twice (also %s)", sh, prev)
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

// CollectParts puts together the parts of the units offset to offset+units−1
// of a run, numbered from 0, each in its place: parts[i] are those the shard
// of files[i], shards[i], recorded. Every unit must be there once, in the
// shard that owns it.
func CollectParts(files []string, shards []Shard, parts [][]Part, offset, units int) ([]Part, error) {
	out := make([]Part, units)
	seen := make([]bool, units)
	for i, ps := range parts {
		for _, p := range ps {
			if p.Unit < 0 || p.Unit >= units || seen[p.Unit] || !shards[i].Owns(offset+p.Unit) {
				return nil, MergeErrorf(files[i], "unit %d is not this shard's, or is given twice", p.Unit)
			}
			out[p.Unit], seen[p.Unit] = p, true
		}
	}
	for u, ok := range seen {
		if !ok {
			return nil, MergeErrorf("", "unit %d of %d is in no shard: a shard was cut short", u, units)
		}
	}
	return out, nil
}

// sameRun says how two shards differ in what was run, nil when they do not:
// the experiment, notesbench's version, the shard count, the configuration
// and how it departs from the published setup — how each ran (runSetting)
// may differ.
func sameRun(a, b ShardRecord, ac, bc json.RawMessage, seeds func([]uint64) string) error {
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
	wrapped, err := json.Marshal(struct {
		Config json.RawMessage `json:"config"`
	}{ac})
	if err != nil {
		return err
	}
	diffs, err := ParameterDiffs(wrapped, bc, false, seeds)
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
