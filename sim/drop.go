package sim

import (
	"math/rand/v2"
	"strconv"
)

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

// ValidateDrop checks a reply-loss probability. A probability of 1 is refused too:
// every reply would be lost and the client would resend for ever.
func ValidateDrop(p float64) error {
	if !(p >= 0 && p <= 1) {
		return fieldErr("drop", "%s is not a probability (want 0 to 1)", strconv.FormatFloat(p, 'g', -1, 64))
	}
	if p == 1 {
		return fieldErr("drop", "1 loses every reply, so the client would resend for ever (want below 1)")
	}
	if p > maxDrop {
		return fieldErr("drop", "must be at most %g (a write is resent about 1/(1 − drop) times: %.0f times at %s)", maxDrop, 1/(1-p), strconv.FormatFloat(p, 'g', -1, 64))
	}
	return nil
}

// maxDrop bounds the share of lost replies: at 0.99 a write is resent some
// 100 times, beyond which a run has no sensible use and no end in sight.
const maxDrop = 0.99

// MaxCallsPerIntent bounds the calls spent on one intended tab or citation. With a
// drop below 1 a run ends with probability 1 (a drop of 0.99 needs 100 calls per
// intent on average); the bound turns a client that loops for another reason into
// an error instead of a hang.
const MaxCallsPerIntent = 10_000
