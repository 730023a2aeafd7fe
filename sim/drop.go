package sim

import "math/rand/v2"

// ReplyLoss injects one fault: the reply to a call that succeeded is lost on its way
// back to the client, after the server committed. That is what a host timeout looks
// like from the client's side: the write happened, the client does not know it.
//
// The caller asks Lost once for every reply that reports a success (a commit or a
// replayed first result), after the call returned and before the client looks at
// the reply. Conflict and error replies always arrive and must not be passed to Lost,
// so they take nothing from the stream.
//
// Every Lost call takes exactly one value from the stream, whatever p is, so two
// clients that see the same sequence of successful replies lose the same ones, and
// a run's losses do not shift when p or a policy elsewhere changes.
//
// A ReplyLoss is not safe for concurrent use; give each run its own.
type ReplyLoss struct {
	r *rand.Rand
	p float64
}

// NewReplyLoss returns a ReplyLoss that loses each successful reply with probability
// p, drawing from r (typically Stream(seed, "drop")). A p of 0 or less loses nothing;
// a p of 1 or more loses every reply.
func NewReplyLoss(r *rand.Rand, p float64) *ReplyLoss {
	return &ReplyLoss{r: r, p: p}
}

// Lost reports whether the reply to a call that succeeded is lost. It takes one
// value from the stream on every call.
func (l *ReplyLoss) Lost() bool {
	if l.r.Float64() < l.p {
		return true
	}
	return false
}
