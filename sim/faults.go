package sim

import (
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// FaultInjector is a Backend that makes faults between notesbench and the
// server (an MCP target given --nemesis): InjectFaults starts them, tells
// begin of each as it begins (its kind, as history names it, and the pid of
// the process it hit) and the func begin returns of its end; stop ends them
// and returns how many there were. The faults are the target's, never an
// editor's: the editors meet them as outcomes of their calls.
type FaultInjector interface {
	InjectFaults(begin func(kind string, pid int) (end func(detail string))) (stop func() int)
}

// InjectFaults starts the faults of b, if it makes any, each recorded in rec
// (nil: none recorded); stop ends them and returns how many the run had, 0
// for a backend that makes none. Start them once the run is set up, stop
// them before its final state is read.
func InjectFaults(b contract.Backend, rec *history.Recorder) (stop func() int) {
	fi, ok := b.(FaultInjector)
	if !ok {
		return func() int { return 0 }
	}
	if rec == nil {
		return fi.InjectFaults(func(string, int) func(string) { return func(string) {} })
	}
	return fi.InjectFaults(rec.FaultBegan)
}

// OutcomeCounts is what a call's error adds to its client's counts beside
// the error: 1 info when nobody knows whether it happened, 1 unreadable
// when the reply was no document anyone could read.
func OutcomeCounts(err error) (info, unreadable int) {
	if err == nil {
		return 0, 0
	}
	if contract.OutcomeOf(err) == contract.Info {
		info = 1
	}
	if contract.KindOf(err) == contract.KindUnreadable {
		unreadable = 1
	}
	return info, unreadable
}
