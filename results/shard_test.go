package results

import "testing"

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
