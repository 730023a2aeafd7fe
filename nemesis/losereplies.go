package nemesis

import (
	"context"
	"math/rand/v2"
	"strconv"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
)

// LoseReplies loses the reply to a write after the server committed it:
// the write happened, the client cannot know. That is what a host timeout
// looks like from the client's side. It is made on one of two schedules.
//
// On the wire, in time (Invoke, drawn by Schedule as the other nemeses
// are): the client that owns the wire drops the reply to the next write
// after the server sent it, and cuts the connection.
//
// Per reply (PerReply): the client itself draws, for every reply that
// reports a success, whether it is lost, and resends as if it never came.
// The published create and sources experiments use this one: their figures
// rest on one draw per successful reply from the run's seed, so the same
// seed loses the same replies, which a schedule in time, racing the
// server, cannot promise.
type LoseReplies struct{}

func (LoseReplies) Kind() string  { return history.FaultLoseReplies }
func (LoseReplies) Place() Place  { return Wire }
func (LoseReplies) About() string { return "drop a write's reply after the server sent it" }

func (n LoseReplies) Invoke(_ context.Context, r Victim) bool { return r.Arm(n.Kind()) }

// PerReply returns the per-reply schedule of one run: each successful reply
// is lost with probability p, drawn from r (typically sim.Stream(seed,
// "drop")). A p of 0 or less loses nothing; a p of 1 or more loses every
// reply. ValidatePerReply says which p a run may take.
func (LoseReplies) PerReply(r *rand.Rand, p float64) *ReplyDraws {
	return &ReplyDraws{r: r, p: p}
}

// ValidatePerReply checks the probability of LoseReplies' per-reply
// schedule, as the field "drop". A probability of 1 is refused too: every
// reply would be lost and the client would resend for ever.
func ValidatePerReply(p float64) error {
	if !(p >= 0 && p <= 1) {
		return field.Errorf("drop", "%s is not a probability (want 0 to 1)", strconv.FormatFloat(p, 'g', -1, 64))
	}
	if p == 1 {
		return field.Errorf("drop", "1 loses every reply, so the client would resend for ever (want below 1)")
	}
	if p > maxDrop {
		return field.Errorf("drop", "must be at most %g (a write is resent about 1/(1 − drop) times: %.0f times at %s)", maxDrop, 1/(1-p), strconv.FormatFloat(p, 'g', -1, 64))
	}
	return nil
}

// maxDrop bounds the share of lost replies: at 0.99 a write is resent some
// 100 times, beyond which a run has no sensible use and no end in sight.
const maxDrop = 0.99

// ReplyDraws is LoseReplies on its per-reply schedule, for one run's
// client.
//
// Every Lose takes exactly one value from the stream, whatever p is, so two
// clients that see the same sequence of successful replies lose the same
// ones, and a run's losses do not shift when p or a policy elsewhere
// changes. Conflict and error replies always arrive and are not drawn for,
// so they take nothing from the stream.
//
// A ReplyDraws is not safe for concurrent use; give each run its own.
type ReplyDraws struct {
	r *rand.Rand
	p float64
}

// Lose draws whether the reply to the call s just made, which reported a
// success (a commit or a replayed first result), is lost, and when it is,
// records that on s (history.LoseReply: the call's outcome becomes unknown,
// its reply forgotten) and reports true; the client then acts as if the
// reply never came. Call it once for every successful reply, after the call
// returned and before the client looks at the reply. It takes one value
// from the stream on every call.
func (d *ReplyDraws) Lose(s contract.Session) bool {
	if d.r.Float64() < d.p {
		history.LoseReply(s)
		return true
	}
	return false
}
