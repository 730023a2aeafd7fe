package nemesis

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// dropStream stands for a run's "drop" stream: the same seed, the same draws.
func dropStream(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x64726f70)) }

// TestPerReplyOneDrawPerReply checks that Lose takes exactly one value from
// its stream per call, whatever p is, and loses a reply exactly when that
// value is below p.
func TestPerReplyOneDrawPerReply(t *testing.T) {
	for _, p := range []float64{0, 0.2, 0.3, 0.999, 1} {
		loss := LoseReplies{}.PerReply(dropStream(7), p)
		ref := dropStream(7)
		lost := 0
		for i := range 2000 {
			want := ref.Float64() < p
			if got := loss.Lose(nil); got != want {
				t.Fatalf("p %v, reply %d: Lose() = %v, want %v", p, i, got, want)
			}
			if want {
				lost++
			}
		}
		switch p {
		case 0:
			if lost != 0 {
				t.Errorf("p 0 lost %d replies", lost)
			}
		case 1:
			if lost != 2000 {
				t.Errorf("p 1 lost %d of 2000 replies", lost)
			}
		}
	}
}

func TestPerReplyRate(t *testing.T) {
	loss := LoseReplies{}.PerReply(dropStream(1), 0.3)
	const n = 100_000
	got := 0
	for range n {
		if loss.Lose(nil) {
			got++
		}
	}
	// The standard deviation of the count is about 145; allow 5 of them.
	if got < 29_275 || got > 30_725 {
		t.Errorf("lost %d of %d replies at p 0.3", got, n)
	}
}

// creates is a session whose every create_note_tab commits.
type creates struct{ contract.Session }

func (creates) CreateNoteTab(_ context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	return contract.CreateResult{TabID: "sheet-" + req.IdempotencyKey, Version: "2"}, nil
}

// A reply Lose loses is recorded lost on the session's history, and only
// that one: the history says of each call what the client was told.
func TestLoseRecordsTheLoss(t *testing.T) {
	ctx := context.Background()
	w := history.NewWriter(history.Header{Experiment: "create"})
	rec, err := history.Record(w, history.RunHeader{Run: "a"}, func() int64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Session(creates{}, "client")
	loss, ref := LoseReplies{}.PerReply(dropStream(3), 0.5), dropStream(3)
	var want []bool
	for i := range 20 {
		if _, err := s.CreateNoteTab(ctx, contract.CreateRequest{NoteID: "note-1", ExpectedVersion: "1",
			IdempotencyKey: strconv.Itoa(i), TabType: contract.TypeSheet}); err != nil {
			t.Fatal(err)
		}
		want = append(want, ref.Float64() < 0.5)
		if got := loss.Lose(s); got != want[i] {
			t.Fatalf("reply %d: Lose() = %v, want %v", i, got, want[i])
		}
	}
	if !slices.Contains(want, true) || !slices.Contains(want, false) {
		t.Fatalf("the stream lost %v: want some replies lost and some not", want)
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.Contains(line, `"create_note_tab"`) {
			calls = append(calls, line)
		}
	}
	if len(calls) != len(want) {
		t.Fatalf("%d calls recorded, want %d:\n%s", len(calls), len(want), buf.String())
	}
	for i, line := range calls {
		if got := strings.Contains(line, `"reply_lost"`); got != want[i] {
			t.Errorf("call %d recorded lost %v, want %v: %s", i, got, want[i], line)
		}
	}
}

// A per-reply probability is one below 1 and at most maxDrop, named as the
// field drop.
func TestValidatePerReply(t *testing.T) {
	for _, p := range []float64{0, 0.3, maxDrop} {
		if err := ValidatePerReply(p); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
	for p, want := range map[float64]string{
		1.5:   "drop: 1.5 is not a probability (want 0 to 1)",
		-0.1:  "drop: -0.1 is not a probability (want 0 to 1)",
		1:     "drop: 1 loses every reply, so the client would resend for ever (want below 1)",
		0.995: "drop: must be at most 0.99 (a write is resent about 1/(1 − drop) times: 200 times at 0.995)",
	} {
		if err := ValidatePerReply(p); err == nil || err.Error() != want {
			t.Errorf("%v: %v, want %s", p, err, want)
		}
	}
}
