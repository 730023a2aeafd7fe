package sim

import (
	"fmt"
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

// RandomUUID draws a random (version 4) UUID from r, in its usual text form: the
// key a model's client would put on a call.
func RandomUUID(r *rand.Rand) string {
	hi, lo := r.Uint64(), r.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}
