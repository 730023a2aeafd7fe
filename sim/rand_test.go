package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func draws(seed uint64, name string) []uint64 {
	r := Stream(seed, name)
	out := make([]uint64, 8)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func TestStreamDeterminism(t *testing.T) {
	if a, b := draws(1, "claude"), draws(1, "claude"); !slices.Equal(a, b) {
		t.Errorf("same seed and name gave %v and %v", a, b)
	}
	for _, other := range []struct {
		seed uint64
		name string
	}{{1, "human"}, {2, "claude"}, {1, ""}, {1, "Claude"}} {
		if slices.Equal(draws(1, "claude"), draws(other.seed, other.name)) {
			t.Errorf("stream (1, claude) equals stream (%d, %q)", other.seed, other.name)
		}
	}
}

// TestStreamIsPinned guards the derivation itself: a change to it would silently
// change every published-parameter result and every baseline.
func TestStreamIsPinned(t *testing.T) {
	// 0x239194803edf98f7 is FNV-1a 64 of "claude", computed outside Go.
	ref := rand.New(rand.NewPCG(1, 0x239194803edf98f7))
	if a, b := draws(1, "claude"), []uint64{ref.Uint64(), ref.Uint64()}; !slices.Equal(a[:2], b) {
		t.Errorf("Stream(1, \"claude\") starts %v, want PCG(1, fnv1a64(\"claude\")) = %v", a[:2], b)
	}
	const want uint64 = 15217103868099101329
	if got := Stream(1, "claude").Uint64(); got != want {
		t.Errorf("Stream(1, \"claude\").Uint64() = %d, want %d", got, want)
	}
}
