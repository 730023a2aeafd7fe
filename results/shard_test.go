package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Shards of different runs say how they differ, a count of one in the
// singular.
func TestSameRunSaysHow(t *testing.T) {
	a := ShardRecord{Shard: Shard{Index: 1, Count: 2}, Units: 3}
	for _, tc := range []struct {
		b    ShardRecord
		want string
	}{
		{ShardRecord{Shard: Shard{Index: 1, Count: 1}, Units: 3}, "one shard of 1, not of 2"},
		{ShardRecord{Shard: Shard{Index: 2, Count: 2}, Units: 1}, "1 unit, not 3"},
	} {
		if err := sameRun(a, tc.b, nil, nil, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.b, err, tc.want)
		}
	}
}

// A recorded configuration reads back into the published setup, every field
// as it ran; one that does not read is the file's fault, and one whose
// fields the configuration would not write again is refused.
func TestReadConfig(t *testing.T) {
	type config struct {
		Edits int      `json:"edits"`
		Seeds []uint64 `json:"seeds"`
	}
	read := func(recorded string) (config, error) {
		c := config{Edits: 100, Seeds: []uint64{1}}
		err := (&Shards{Files: []string{"a.json"}, Config: []byte(recorded)}).ReadConfig(&c)
		return c, err
	}
	if c, err := read(`{"edits": 6, "seeds": [18446744073709551615]}`); err != nil || c.Edits != 6 || c.Seeds[0] != 1<<64-1 {
		t.Errorf("read %+v, %v", c, err)
	}
	var me *MergeError
	if _, err := read(`{"edits": "six"}`); !errors.As(err, &me) || me.File != "a.json" {
		t.Errorf("a record that does not read: %v, want a *MergeError about a.json", err)
	}
	if _, err := read(`{"edits": 6, "clock": "virtual"}`); err == nil || errors.As(err, &me) || !strings.Contains(err.Error(), `clock "virtual", read back absent`) {
		t.Errorf("a field the configuration lacks: %v", err)
	}
}

// A part's digest is of what the unit gave, not of how its JSON is spaced
// or its keys ordered: a shard's file, written indented, gives the digest of
// the part the run kept. Any change to what it gave changes it.
func TestPartDigest(t *testing.T) {
	p := Part{Unit: 3, Replication: true, Seeds: []uint64{7}, Rows: json.RawMessage(`[{"lost":2,"guard":"none"}]`), Runs: json.RawMessage(`[]`), Facts: []string{}}
	spaced := p
	spaced.Unit = 13 // a unit's number is its place, not what it gave
	spaced.Rows = json.RawMessage("[\n  {\"guard\": \"none\",\n   \"lost\": 2}\n]")
	if p.Digest() != spaced.Digest() || len(p.Digest()) != 16 {
		t.Fatalf("digests %s and %s of one result", p.Digest(), spaced.Digest())
	}
	for name, edit := range map[string]func(*Part){
		"rows":        func(q *Part) { q.Rows = json.RawMessage(`[{"lost":3,"guard":"none"}]`) },
		"runs":        func(q *Part) { q.Runs = json.RawMessage(`[{"seed":7}]`) },
		"seeds":       func(q *Part) { q.Seeds = []uint64{8} },
		"facts":       func(q *Part) { q.Facts = []string{"a fact"} },
		"replication": func(q *Part) { q.Replication = false },
	} {
		q := p
		edit(&q)
		if q.Digest() == p.Digest() {
			t.Errorf("another %s, the same digest", name)
		}
	}
}

// A shard of a reproduction is checked unit by unit against the digests a
// reproduction recorded: those that differ are named, those it recorded
// none for are not counted, and a shard of other parameters is refused.
func TestCheckShard(t *testing.T) {
	part := func(unit int, lost int) Part {
		return Part{Unit: unit, Seeds: []uint64{uint64(unit + 1)}, Rows: json.RawMessage(fmt.Sprintf(`[{"lost":%d}]`, lost)), Runs: json.RawMessage(`[]`)}
	}
	cfg := ReproduceConfig{Replications: 3, Only: []string{"race", "bench"}}
	rec := Reproduction{Config: cfg, Units: []StepDigests{
		{Experiment: "race", Jobs: [][]string{{part(0, 5).Digest(), part(1, 6).Digest(), part(2, 7).Digest()}}},
		{Experiment: "bench", Jobs: [][]string{{""}}},
	}}
	shard := &ReproduceShard{Config: cfg, Rows: []ShardStep{
		{Experiment: "race", Jobs: [][]Part{{part(0, 5), part(2, 8)}}},
		{Experiment: "bench", Jobs: [][]Part{{part(0, 1)}}},
	}}
	c, err := rec.CheckShard(shard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Checked != 2 || len(c.Differ) != 1 || !strings.HasPrefix(c.Differ[0], "race job 1 unit 2 (main run, seeds [3])") {
		t.Fatalf("checked %d, differ %q", c.Checked, c.Differ)
	}
	for name, bad := range map[string]struct {
		rec  func(*Reproduction)
		cfg  func(*ReproduceConfig)
		want string
	}{
		"no digests":   {rec: func(r *Reproduction) { r.Units = nil }, want: "holds no digests"},
		"replications": {cfg: func(c *ReproduceConfig) { c.Replications = 4 }, want: "--replications 3, not 4"},
		"clock":        {cfg: func(c *ReproduceConfig) { c.Real = true }, want: "--clock virtual, not real"},
		"experiment":   {cfg: func(c *ReproduceConfig) { c.Only = []string{"tabs"} }, want: "did not run tabs"},
	} {
		r, s := rec, *shard
		if bad.rec != nil {
			bad.rec(&r)
		}
		if bad.cfg != nil {
			bad.cfg(&s.Config)
		}
		if _, err := r.CheckShard(&s); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", name, err, bad.want)
		}
	}
}

// A shard reads as K/N or, as a Kubernetes Indexed Job numbers its pods
// from 0, as index=I/N: index=1/4 is 2/4.
func TestParseShard(t *testing.T) {
	for s, want := range map[string]Shard{"2/4": {2, 4}, "index=1/4": {2, 4}, "index=0/1": {1, 1}, " 3 / 3": {3, 3}} {
		if got, err := ParseShard(s); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v, want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]string{
		"5/4":          `"5/4": K must be 1 to 4`,
		"0/4":          `"0/4": K must be 1 to 4`,
		"2":            `"2" is not K/N (such as 2/4)`,
		"index=4/4":    `"index=4/4": I must be 0 to 3`,
		"index=1/0":    `"index=1/0": N must be 1 to 10000`,
		"index=$(I)/3": `"index=$(I)/3" is not index=I/N (such as index=1/4)`,
	} {
		if _, err := ParseShard(s); err == nil || err.Error() != want {
			t.Errorf("ParseShard(%q): %v, want %q", s, err, want)
		}
	}
}
