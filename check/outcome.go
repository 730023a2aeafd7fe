package check

import (
	"slices"
	"strings"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// ViolationError is a report in which a check found a violation: what
// ends a check as failed. A violation found in a history cut short is real;
// Cut names those histories, whose other verdicts are unknown.
type ViolationError struct {
	Checks []string
	Cut    []string
	// Careless names the agents of served histories that the agent checks
	// found careless.
	Careless []string
}

func (e *ViolationError) Error() string {
	s := "violated: " + strings.Join(e.Checks, ", ")
	if len(e.Careless) > 0 {
		s += "; careless: " + strings.Join(e.Careless, ", ")
	}
	if len(e.Cut) > 0 {
		s += " (in what was read of histories cut short, with no end line: " + strings.Join(e.Cut, ", ") + ")"
	}
	return s
}

// IncompleteError is histories that leave every verdict unknown, whatever
// the checks found: they hold no run, or one was cut short.
type IncompleteError struct{ msg string }

func (e *IncompleteError) Error() string { return e.msg }

// UnjudgedError names the checks that could not judge everything and found
// no violation in what they judged.
type UnjudgedError struct{ Checks []string }

func (e *UnjudgedError) Error() string {
	return "unknown: " + strings.Join(e.Checks, ", ") + " could not judge everything"
}

// Conclude returns what a check of hs, whose report is rep, ends with: a
// *ViolationError when a check found a violation; else an *IncompleteError
// when the histories hold no run or one was cut short; else an
// *UnjudgedError when a check could not judge everything; else nil.
func Conclude(rep *results.CheckReport, hs []*history.History) error {
	violated, unknown := rep.Failed()
	cut := ""
	if len(rep.Cut) > 0 {
		cut = "cut short (no end line): " + strings.Join(rep.Cut, ", ")
	}
	switch {
	case len(violated) > 0:
		return &ViolationError{violated, rep.Cut, carelessAgents(rep)}
	case rep.Empty:
		var files []string
		for _, h := range hs {
			files = append(files, h.File)
		}
		msg := "nothing to judge: " + strings.Join(files, ", ") + " hold no run"
		if len(files) == 1 {
			msg = "nothing to judge: " + files[0] + " holds no run"
		}
		if cut != "" {
			msg += " (" + cut + ")"
		}
		return &IncompleteError{msg}
	case cut != "":
		return &IncompleteError{"unknown: " + cut + ": what it holds was judged, what it lacks cannot be"}
	case len(unknown) > 0:
		return &UnjudgedError{unknown}
	}
	return nil
}

// carelessAgents names the agents found careless, each once.
func carelessAgents(rep *results.CheckReport) []string {
	var out []string
	for _, ag := range rep.Agents {
		if ag.Verdict == AgentCareless && !slices.Contains(out, ag.Agent) {
			out = append(out, ag.Agent)
		}
	}
	return out
}
