package nemesis

import (
	"context"
	"math/rand/v2"
	"time"
)

// stream names a run's random stream of faults.
const stream = 0x6e656d65736973

// Schedule makes faults on r until ctx ends or r stops: after a gap drawn
// from an exponential distribution of mean every, a nemesis drawn from ns,
// each equally likely, both from seed's stream, so that the same seed
// makes the same faults in the same order. Each waits for what it needs
// (a write in flight, the write that takes it), so a run has at most one
// fault at a time, and the next gap starts once the run recovered from
// the last: a gap shorter than a server's restart would otherwise fault
// every resend, and the run would never get past one write.
func Schedule(ctx context.Context, r Victim, ns []Nemesis, every time.Duration, seed uint64) {
	if len(ns) == 0 || every <= 0 {
		return
	}
	rng := rand.New(rand.NewPCG(seed, stream))
	for {
		gap := time.Duration(rng.ExpFloat64() * float64(every))
		n := ns[rng.IntN(len(ns))]
		t := time.NewTimer(gap)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if !n.Invoke(ctx, r) || !r.Recovered() {
			return
		}
	}
}
