package sim

import (
	"context"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// OpenRecorder starts recording a run in w, on clock, or returns nil when w is nil
// (the default: nothing is recorded). Times are nanoseconds since the run began:
// monotonic on the real clock, virtual on the virtual one.
// A target that maps the contract onto a server's own tools names them in
// h (contract.Mapped).
func OpenRecorder(w *history.Writer, target contract.Target, h history.RunHeader, clock Clock) (*history.Recorder, error) {
	if w == nil {
		return nil, nil
	}
	if m, ok := target.(contract.Mapped); ok {
		h.ServerTools = m.Mapping().ServerTools
	}
	start := clock.Now()
	return history.Record(w, h, func() int64 { return int64(clock.Now().Sub(start)) })
}

// Recorded returns s recorded as editor's session by rec, or s itself when rec
// is nil.
func Recorded(rec *history.Recorder, s contract.Session, editor string) contract.Session {
	if rec == nil {
		return s
	}
	return rec.Session(s, editor)
}

// FinalState reads the final state of notes through s into rec; nothing when
// rec is nil.
func FinalState(ctx context.Context, rec *history.Recorder, s contract.Session, notes ...string) error {
	if rec == nil {
		return nil
	}
	for _, n := range notes {
		if err := rec.Final(ctx, s, n); err != nil {
			return err
		}
	}
	return nil
}

// EndRecord reads the final state of notes through s into rec and ends the run;
// nothing when rec is nil.
func EndRecord(ctx context.Context, rec *history.Recorder, s contract.Session, notes ...string) error {
	if err := FinalState(ctx, rec, s, notes...); err != nil || rec == nil {
		return err
	}
	return rec.End()
}
