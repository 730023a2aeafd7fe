package clientaudit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/notesbench/notesbench/clientaudit"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/results"
)

// Options out of bounds are refused naming the field, as audit --client's
// flag is named, with the bounds; in bounds, they pass.
func TestOptionsValidate(t *testing.T) {
	ok := clientaudit.Options{Lines: 3, Hits: 3, Hold: time.Second, Slow: 30 * time.Minute, RunTimeout: time.Minute}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change      func(*clientaudit.Options)
		field, want string
	}{
		{func(o *clientaudit.Options) { o.Lines = 0 }, "lines", "is 0: a run appends 1 to 1000 lines"},
		{func(o *clientaudit.Options) { o.Lines = 1001 }, "lines", "is 1001: a run appends 1 to 1000 lines"},
		{func(o *clientaudit.Options) { o.Hits = 4 }, "hits", "is 4: a fault hits 1 to --lines (3) writes"},
		{func(o *clientaudit.Options) { o.Hits = 0 }, "hits", "is 0: a fault hits 1 to --lines (3) writes"},
		{func(o *clientaudit.Options) { o.Hold = 0 }, "hold", "is 0s: it must be above 0 and at most 30m0s"},
		{func(o *clientaudit.Options) { o.Slow = 31 * time.Minute }, "slow", "is 31m0s: it must be above 0 and at most 30m0s"},
		{func(o *clientaudit.Options) { o.RunTimeout = -time.Second }, "run_timeout", "is -1s: it must be above 0"},
	} {
		o := ok
		tc.change(&o)
		var fe *field.Error
		if err := o.Validate(); !errors.As(err, &fe) || fe.Field != tc.field || fe.Err.Error() != tc.want {
			t.Errorf("%s: %v, want %s: %s", tc.field, err, tc.field, tc.want)
		}
	}
}

// A client audit's verdict: nil when it passed; failed for an anomalous
// line or a run not judged; unfinished when it was interrupted or nothing
// ran, having found nothing wrong.
func TestVerdict(t *testing.T) {
	ran := []results.ClientRun{{Fault: clientaudit.NoFault}}
	if err := clientaudit.Verdict(results.ClientAudit{Command: "d", Runs: ran}); err != nil {
		t.Errorf("passed: %v", err)
	}
	for _, tc := range []struct {
		a          results.ClientAudit
		want       string
		unfinished bool
	}{
		{results.ClientAudit{Command: "d", Runs: []results.ClientRun{{Error: "exit status 3"}}}, "audit of client d failed: 1 run not judged", false},
		{results.ClientAudit{Command: "d", Runs: ran, Interrupted: true}, "audit of client d unfinished: interrupted after 1 run", true},
		{results.ClientAudit{Command: "d"}, "audit of client d unfinished: nothing ran", true},
	} {
		err := clientaudit.Verdict(tc.a)
		u, ok := err.(interface{ Unfinished() bool })
		if err == nil || err.Error() != tc.want || !ok || u.Unfinished() != tc.unfinished {
			t.Errorf("%v (unfinished %v), want %q (unfinished %v)", err, ok && u.Unfinished(), tc.want, tc.unfinished)
		}
	}
}
