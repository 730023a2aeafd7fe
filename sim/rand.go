package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns the random stream called name ("claude", "human", "drop", ...) of
// the run with the given seed: a PCG generator seeded with seed and the 64-bit FNV-1a
// hash of name. The same seed and name always give the same sequence, on any machine
// and in any order of creation, and streams of different names are independent, so an
// editor's draws do not depend on how often another editor draws. sim has no other
// source of randomness.
func Stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name)) // a hash.Hash never returns an error
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
