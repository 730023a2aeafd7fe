package crash

import (
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// A reply that says the document is gone gives the intent up and tells the
// run, once, whatever the editors that hear it; a refusal gives the intent
// up and tells it nothing.
func TestGoneEndsTheRun(t *testing.T) {
	ed := &editors{gone: make(chan struct{}), answered: make(chan struct{}, 1), acked: map[string]bool{}}
	if got := ed.judge(&contract.RefusedError{Tool: "write_file", Reply: "no"}); got != giveUp {
		t.Errorf("a refusal: %v, want giveUp", got)
	}
	if ed.isGone() || ed.stopped() {
		t.Fatal("a refusal said the document is gone")
	}
	gone := &contract.GoneError{Tool: "read_text_file", Reply: "ENOENT"}
	for range 2 {
		if got := ed.judge(gone); got != giveUp {
			t.Errorf("gone: %v, want giveUp", got)
		}
	}
	if !ed.isGone() || !ed.stopped() {
		t.Fatal("the run was not told the document is gone, or its editors go on")
	}
	if ed.errors.Load() != 3 || ed.lastError() != "the last error: "+gone.Error() {
		t.Errorf("errors %d, %s", ed.errors.Load(), ed.lastError())
	}
}
