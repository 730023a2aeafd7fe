package check

import (
	"context"
	"fmt"
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
	// judged (the check timed out, or lacked what it needed).
	Unknown Verdict = "unknown"
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
	// violation, when Options.Visualize asked for it and there is one.
	Visualization []byte `json:"-"`
}

// Failed returns the checks that found a violation, and those that could
// not judge everything.
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
	// Unjudged counts what the check could not judge, and Reason says why.
	Unjudged int    `json:"unjudged"`
	Reason   string `json:"reason,omitempty"`
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
	// VersionCollisions counts committed writes whose version another
	// committed write of the register had made, or that left it unchanged.
	VersionCollisions int `json:"version_collisions"`
	// Editors holds the acknowledged and lost intents per editor, in order of
	// first call; Lost is their sum.
	Editors []EditorResult `json:"editors"`
	Lost    int            `json:"lost"`
	// Duplicates counts tabs, sources and lines beyond one per intent;
	// ReplayMismatches the replays that differ from their key's first result.
	Duplicates       int `json:"duplicates"`
	ReplayMismatches int `json:"replay_mismatches"`
	StaleOverwrites  int `json:"stale_overwrites"`
}

// EditorResult is one editor's acknowledged intents and how many of them the
// final state lacks.
type EditorResult struct {
	Editor       string `json:"editor"`
	Acknowledged int    `json:"acknowledged"`
	Lost         int    `json:"lost"`
}

// Run judges every run of the histories. It returns an error only when ctx ends;
// what the histories hold decides the verdicts.
func Run(ctx context.Context, hs []*history.History, opts Options) (*Report, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	var runs []*runData
	for _, h := range hs {
		for _, r := range h.Runs {
			runs = append(runs, newRunData(h.File, r))
		}
	}
	rep := &Report{}
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
	for _, c := range checks {
		res := Result{Check: c.name, First: []string{}}
		cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		c.fn(cctx, runs, &res, opts, rep)
		timedOut := cctx.Err() != nil
		cancel()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if timedOut {
			reason := fmt.Sprintf("timed out after %s", opts.Timeout)
			if res.Reason != "" {
				reason += "; " + res.Reason
			}
			res.Reason = reason
		}
		res.Verdict = OK
		switch {
		case res.Violations > 0:
			res.Verdict = Violated
		case res.Unjudged > 0 || timedOut:
			res.Verdict = Unknown
		}
		rep.Checks = append(rep.Checks, res)
	}
	for _, rd := range runs {
		rep.Runs = append(rep.Runs, *rd.res)
	}
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
	// unknown may take effect until.
	end    int64
	finals map[string]*history.Final
}

func newRunData(file string, r *history.Run) *runData {
	h := r.Header
	rd := &runData{file: file, run: r, finals: map[string]*history.Final{},
		res: &RunResult{File: file, Run: h.Run, Seed: h.Seed, Variant: h.Variant, Policy: h.Policy, Calls: len(r.Calls), Editors: []EditorResult{}}}
	for i := range r.Finals {
		rd.finals[r.Finals[i].Note] = &r.Finals[i]
	}
	for _, c := range r.Calls {
		rd.end = max(rd.end, c.Return+1)
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
// first ones.
func (res *Result) violation(rd *runData, format string, args ...any) {
	res.violations(1, rd, format, args...)
}

// unjudged counts n things res could not judge in rd and, when it has no
// reason yet, keeps this one.
func (res *Result) unjudged(n int, rd *runData, format string, args ...any) {
	res.Unjudged += n
	if res.Reason == "" {
		res.Reason = rd.where() + ": " + fmt.Sprintf(format, args...)
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

// violations counts n violations described by one message.
func (res *Result) violations(n int, rd *runData, format string, args ...any) {
	res.Violations += n
	if len(res.First) < MaxShown {
		res.First = append(res.First, rd.where()+": "+fmt.Sprintf(format, args...))
	}
}
