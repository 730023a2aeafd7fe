package results

import (
	"errors"
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
