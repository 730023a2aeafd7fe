package sim

import "testing"

// TestReplyLossOneDrawPerReply checks that Lost takes exactly one value from its
// stream per call, whatever p is, and loses a reply exactly when that value is
// below p.
func TestReplyLossOneDrawPerReply(t *testing.T) {
	for _, p := range []float64{0, 0.2, 0.3, 0.999, 1} {
		loss := NewReplyLoss(Stream(7, "drop"), p)
		ref := Stream(7, "drop")
		lost := 0
		for i := range 2000 {
			want := ref.Float64() < p
			if got := loss.Lost(); got != want {
				t.Fatalf("p %v, reply %d: Lost() = %v, want %v", p, i, got, want)
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

func TestReplyLossRate(t *testing.T) {
	loss := NewReplyLoss(Stream(1, "drop"), 0.3)
	const n = 100_000
	got := 0
	for range n {
		if loss.Lost() {
			got++
		}
	}
	// The standard deviation of the count is about 145; allow 5 of them.
	if got < 29_275 || got > 30_725 {
		t.Errorf("lost %d of %d replies at p 0.3", got, n)
	}
}
