package check

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// DefaultTimeout is how long one check may take when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// The checks, in the order a Report lists them.
const (
	Linearizability = "linearizability"
	Versions        = "versions"
	LostUpdates     = "lost-updates"
	Duplicates      = "duplicates"
	StaleOverwrites = "stale-overwrites"
)

// Verdict is what a check found.
type Verdict string

// The verdicts.
const (
	// OK: the check judged everything it could and found nothing wrong.
	OK Verdict = "ok"
	// Violated: the check found at least one violation.
	Violated Verdict = "violated"
	// Unknown: no violation found, but part of the histories could not be
	// judged (the check timed out, or lacked what it needed, or a history
	// was cut short), or there was nothing to judge.
	Unknown Verdict = "unknown"
	// NotApplicable: the check is no rule of the runs it was given (the
	// versions check on digest or opaque versions, which need not change
	// with every commit). It is neither ok nor unknown: nothing was judged,
	// and nothing needed to be.
	NotApplicable Verdict = "n/a"
)

// Options tune Run. The zero Options are the defaults.
type Options struct {
	// Timeout bounds each check; 0 means DefaultTimeout. A check that runs out
	// of time says Unknown for what it did not judge.
	Timeout time.Duration
	// Visualize keeps porcupine's HTML page of the first linearizability
	// violation in Report.Visualization.
	Visualize bool
}

// Report is what Run found: one Result per check, and the figures of every run.
type Report struct {
	Checks []Result    `json:"checks"`
	Runs   []RunResult `json:"runs"`
	// Visualization is porcupine's HTML page of the first linearizability
	// violation, when Options.Visualize asked for it and there is one, with
	// the faults of its run marked on the timeline.
	Visualization []byte `json:"-"`
	// Empty says the histories hold no run: nothing was judged, and every
	// check is Unknown.
	Empty bool `json:"-"`
	// Cut names the histories that were cut short (history.History.Cut),
	// each with the line it ends after: "h.jsonl after line 12". Their
	// verdicts are at best Unknown.
	Cut []string `json:"-"`
	// Agents holds, for served histories (history.ExperimentServe), each
	// client of each run and the verdict on it (see agents.go).
	Agents []AgentResult `json:"agents,omitempty"`
}

// Failed returns the checks that found a violation, and those that could
// not judge everything. A NotApplicable check is neither.
func (r *Report) Failed() (violated, unknown []string) {
	for _, c := range r.Checks {
		switch c.Verdict {
		case Violated:
			violated = append(violated, c.Check)
		case Unknown:
			unknown = append(unknown, c.Check)
		}
	}
	return violated, unknown
}

// Result is one check's verdict over every history.
type Result struct {
	Check   string  `json:"check"`
	Verdict Verdict `json:"verdict"`
	// Judged counts what the check judged: registers for linearizability,
	// committed writes for versions and stale-overwrites, acknowledged intents
	// for lost-updates, intents for duplicates.
	Judged int `json:"judged"`
	// Violations counts what it found wrong, in the same units.
	Violations int `json:"violations"`
	// First describes the first violations, at most MaxShown, each naming its
	// file, run and operations.
	First []string `json:"first"`
	// Unjudged counts what the check could not judge, and Reason says why
	// (or, for a check that is ok or n/a, which runs it did not apply to).
	Unjudged int    `json:"unjudged"`
	Reason   string `json:"reason,omitempty"`
	// NotApplicable counts the runs the check is no rule of.
	NotApplicable int `json:"not_applicable,omitempty"`
}

// MaxShown is how many violations a Result describes.
const MaxShown = 3

// RunResult holds one run's figures.
type RunResult struct {
	File    string           `json:"file"`
	Run     string           `json:"run"`
	Seed    uint64           `json:"seed"`
	Variant contract.Variant `json:"variant"`
	Policy  string           `json:"policy,omitempty"`
	Calls   int              `json:"calls"`
	// Registers is how many versioned registers (partitions) the run has, and
	// Linearizable the verdict over all of them.
	Registers    int     `json:"registers"`
	Linearizable Verdict `json:"linearizable"`
	// Versions is the versions check's verdict on the run: NotApplicable for
	// digest and opaque versions. VersionCollisions counts committed writes
	// whose version another committed write of the register had made, or
	// that left it unchanged.
	Versions          Verdict `json:"versions"`
	VersionCollisions int     `json:"version_collisions"`
	// Editors holds the acknowledged and lost intents per editor, in order of
	// first call; Lost is their sum.
	Editors []EditorResult `json:"editors"`
	Lost    int            `json:"lost"`
	// Duplicates counts tabs, sources and lines beyond one per intent;
	// ReplayMismatches the replays that differ from their key's first result.
	Duplicates       int `json:"duplicates"`
	ReplayMismatches int `json:"replay_mismatches"`
	StaleOverwrites  int `json:"stale_overwrites"`
	// Faults counts the faults injected into the run.
	Faults int `json:"faults"`
}

// EditorResult is one editor's acknowledged intents and how many of them the
// final state lacks.
type EditorResult struct {
	Editor       string `json:"editor"`
	Acknowledged int    `json:"acknowledged"`
	Lost         int    `json:"lost"`
}

// Run judges every run of the histories. It returns an error only when ctx ends;
// what the histories hold decides the verdicts. Histories without a run leave
// nothing to judge: every check is Unknown. A history cut short is judged on
// what it holds, and no check says OK of it: a check that found no violation
// is Unknown.
func Run(ctx context.Context, hs []*history.History, opts Options) (*Report, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	rep := &Report{}
	var runs []*runData
	for _, h := range hs {
		if h.Cut {
			rep.Cut = append(rep.Cut, fmt.Sprintf("%s after line %d", h.File, h.Lines))
		}
		for _, r := range h.Runs {
			rd := newRunData(h.File, r)
			rd.served = h.Header.Experiment == history.ExperimentServe
			runs = append(runs, rd)
		}
	}
	rep.Empty = len(runs) == 0
	checks := []struct {
		name string
		fn   func(context.Context, []*runData, *Result, Options, *Report)
	}{
		{Linearizability, checkLinearizability},
		{Versions, checkVersions},
		{LostUpdates, checkLost},
		{Duplicates, checkDuplicates},
		{StaleOverwrites, checkStale},
	}
	if len(served(runs)) > 0 {
		checks = append(checks, agentChecks...)
	}
	for _, c := range checks {
		res := Result{Check: c.name, First: []string{}}
		cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		c.fn(cctx, runs, &res, opts, rep)
		timedOut := cctx.Err() != nil
		cancel()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var why []string // why the verdict is no better than unknown
		if timedOut {
			why = append(why, fmt.Sprintf("timed out after %s", opts.Timeout))
		}
		if rep.Empty {
			why = append(why, "nothing to judge: the histories hold no run")
		}
		if len(rep.Cut) > 0 {
			why = append(why, "cut short (no end line): "+strings.Join(rep.Cut, ", ")+"; what it lacks was not judged")
		}
		res.Verdict = OK
		switch {
		case res.Violations > 0:
			res.Verdict = Violated
		case res.Unjudged > 0 || timedOut || rep.Empty:
			res.Verdict = Unknown
		case res.Judged == 0 && res.NotApplicable > 0:
			res.Verdict = NotApplicable
		case len(rep.Cut) > 0:
			res.Verdict = Unknown
		}
		if res.Reason != "" {
			why = append(why, res.Reason)
		}
		res.Reason = strings.Join(why, "; ")
		rep.Checks = append(rep.Checks, res)
	}
	for _, rd := range runs {
		rep.Runs = append(rep.Runs, *rd.res)
	}
	rep.Agents = agentResults(runs)
	return rep, nil
}

// runData is one run being checked: its calls, split into registers, and the
// figures found so far.
type runData struct {
	file  string
	run   *history.Run
	res   *RunResult
	parts []*partition
	// end is later than every event of the run: where calls whose outcome is
	// unknown (Info) may take effect until, and where the final state was
	// read.
	end    int64
	finals map[string]*history.Final
	// served says the run is of a served history, which the agent checks
	// judge; agents is what they learned of it, once.
	served bool
	agents *agentRun
}

func newRunData(file string, r *history.Run) *runData {
	h := r.Header
	rd := &runData{file: file, run: r, finals: map[string]*history.Final{},
		res: &RunResult{File: file, Run: h.Run, Seed: h.Seed, Variant: h.Variant, Policy: h.Policy, Calls: len(r.Calls),
			Versions: Unknown, Editors: []EditorResult{}, Faults: len(r.Faults)}}
	for i := range r.Finals {
		rd.finals[r.Finals[i].Note] = &r.Finals[i]
	}
	for _, c := range r.Calls {
		rd.end = max(rd.end, c.Return+1)
	}
	for _, f := range r.Faults {
		rd.end = max(rd.end, f.End+1)
	}
	rd.parts = partitions(r)
	rd.res.Registers = len(rd.parts)
	return rd
}

// where names a run for a message: "race.jsonl, run race-none-seed1".
func (rd *runData) where() string {
	return fmt.Sprintf("%s, run %s", rd.file, rd.run.Header.Run)
}

// violation counts one violation on res and keeps its description among the
// first ones, with the faults of the run that came before at, the time of
// the violation on the run's clock.
func (res *Result) violation(rd *runData, at int64, format string, args ...any) {
	res.violations(1, rd, math.MinInt64, at, format, args...)
}

// unjudged counts n things res could not judge in rd and, when it has no
// reason yet, keeps this one.
func (res *Result) unjudged(n int, rd *runData, format string, args ...any) {
	res.Unjudged += n
	if res.Reason == "" {
		res.Reason = rd.where() + ": " + fmt.Sprintf(format, args...)
	}
}

// notApplicable counts rd as a run the check is no rule of and, when res has
// no reason yet, keeps this one.
func (res *Result) notApplicable(rd *runData, format string, args ...any) {
	res.NotApplicable++
	if res.Reason == "" {
		res.Reason = "not applicable to " + rd.where() + ": " + fmt.Sprintf(format, args...)
	}
}

// eachRun calls judge on each run in turn; once ctx is done, every run left
// counts as unjudged instead.
func eachRun(ctx context.Context, runs []*runData, res *Result, judge func(rd *runData)) {
	for _, rd := range runs {
		if ctx.Err() != nil {
			res.Unjudged++
			continue
		}
		judge(rd)
	}
}

// violations counts n violations described by one message, which names the
// faults of the run that began in [from, to).
func (res *Result) violations(n int, rd *runData, from, to int64, format string, args ...any) {
	res.Violations += n
	if len(res.First) < MaxShown {
		res.First = append(res.First, rd.where()+": "+fmt.Sprintf(format, args...)+rd.faultsIn(from, to))
	}
}

// maxFaultsShown is how many faults a violation's description names.
const maxFaultsShown = 3

// faultsIn describes the faults of the run that began in [from, to), the
// last maxFaultsShown of them: "; after kill at 1.20 s (pid 4711)", "" when
// there is none.
func (rd *runData) faultsIn(from, to int64) string {
	var in []string
	for _, f := range rd.run.Faults {
		if f.Start >= from && f.Start < to {
			in = append(in, f.String())
		}
	}
	switch n := len(in); {
	case n == 0:
		return ""
	case n > maxFaultsShown:
		return fmt.Sprintf("; after %d faults, the last %s", n, and(in[n-maxFaultsShown:]))
	default:
		return "; after " + and(in)
	}
}

// and joins a list for a sentence: "a", "a and b", "a, b and c".
func and(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
