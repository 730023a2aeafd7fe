package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// shardIndexUsage ends the help of every --shard: its form by index.
const shardIndexUsage = "; or index=I/N, the shard by its index from 0 (index=1/4 is 2/4), " +
	"as a Kubernetes Indexed Job numbers its pods: index=$(JOB_COMPLETION_INDEX)/N in the Job's args"

// parseShard reads --shard: K/N, K from 1 to N, or index=I/N, I from 0 to
// N-1, the same shard as (I+1)/N.
func parseShard(s string) (results.Shard, error) {
	rest, ok := strings.CutPrefix(s, "index=")
	if !ok {
		return results.ParseShard(s)
	}
	i, n, ok := strings.Cut(rest, "/")
	ii, err1 := strconv.Atoi(strings.TrimSpace(i))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return results.Shard{}, fmt.Errorf("%q is not index=I/N (such as index=1/4)", s)
	case ni < 1 || ni > results.MaxShards:
		return results.Shard{}, fmt.Errorf("%q: N must be 1 to %d", s, results.MaxShards)
	case ii < 0 || ii >= ni:
		return results.Shard{}, fmt.Errorf("%q: I must be 0 to %d", s, ni-1)
	}
	return results.Shard{Index: ii + 1, Count: ni}, nil
}
