package check

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// DefaultTimeout is how long one check may take when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Options tune Run. The zero Options are the defaults.
type Options struct {
	// Timeout bounds each check; 0 means DefaultTimeout. A check that runs out
	// of time says Unknown for what it did not judge.
	Timeout time.Duration
	// Visualize keeps porcupine's HTML page of the first linearizability
	// violation in results.CheckReport.Visualization.
	Visualize bool
}

// MaxShown is how many violations a Result describes.
const MaxShown = 3

// Run judges every run of the histories. It returns an error only when ctx ends;
// what the histories hold decides the verdicts. Histories without a run leave
// nothing to judge: every check is Unknown. A history cut short is judged on
// what it holds, and no check says OK of it: a check that found no violation
// is Unknown.
func Run(ctx context.Context, hs []*history.History, opts Options) (*results.CheckReport, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	rep := &results.CheckReport{}
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
	checks := historyChecks
	if len(served(runs)) > 0 {
		checks = slices.Concat(historyChecks, agentChecks)
	}
	for _, c := range checks {
		res := results.CheckResult{Check: c.name, First: []string{}}
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
		res.Verdict = results.CheckOK
		switch {
		case res.Violations > 0:
			res.Verdict = results.CheckViolated
		case res.Unjudged > 0 || timedOut || rep.Empty:
			res.Verdict = results.CheckUnknown
		case res.Judged == 0 && res.NotApplicable > 0:
			res.Verdict = results.CheckNotApplicable
		case len(rep.Cut) > 0:
			res.Verdict = results.CheckUnknown
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

// aCheck is one check: its name, and what judges the runs.
type aCheck struct {
	name string
	fn   func(context.Context, []*runData, *results.CheckResult, Options, *results.CheckReport)
}

// historyChecks are the checks of every history, in the order a report
// lists them; a served history gets agentChecks after them.
var historyChecks = []aCheck{
	{results.CheckLinearizability, checkLinearizability},
	{results.CheckVersions, checkVersions},
	{results.CheckLostUpdates, checkLost},
	{results.CheckDuplicates, checkDuplicates},
	{results.CheckStaleOverwrites, checkStale},
	{results.CheckEmptyReads, checkEmptyReads},
}

// HistoryChecks names the checks of every history, in the order a report
// lists them.
func HistoryChecks() []string {
	names := make([]string, len(historyChecks))
	for i, c := range historyChecks {
		names[i] = c.name
	}
	return names
}

// runData is one run being checked: its calls, split into registers, and the
// figures found so far.
type runData struct {
	file  string
	run   *history.Run
	res   *results.CheckRun
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
		res: &results.CheckRun{File: file, Run: h.Run, Seed: h.Seed, Variant: h.Variant, Policy: h.Policy, Calls: len(r.Calls),
			Versions: results.CheckUnknown, Editors: []results.CheckEditor{}, Faults: len(r.Faults)}}
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
func violation(res *results.CheckResult, rd *runData, at int64, format string, args ...any) {
	violations(res, 1, rd, math.MinInt64, at, format, args...)
}

// unjudged counts n things res could not judge in rd and, when it has no
// reason yet, keeps this one.
func unjudged(res *results.CheckResult, n int, rd *runData, format string, args ...any) {
	res.Unjudged += n
	if res.Reason == "" {
		res.Reason = rd.where() + ": " + fmt.Sprintf(format, args...)
	}
}

// notApplicable counts rd as a run the check is no rule of and, when res has
// no reason yet, keeps this one.
func notApplicable(res *results.CheckResult, rd *runData, format string, args ...any) {
	res.NotApplicable++
	if res.Reason == "" {
		res.Reason = "not applicable to " + rd.where() + ": " + fmt.Sprintf(format, args...)
	}
}

// eachRun calls judge on each run in turn; once ctx is done, every run left
// counts as unjudged instead.
func eachRun(ctx context.Context, runs []*runData, res *results.CheckResult, judge func(rd *runData)) {
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
func violations(res *results.CheckResult, n int, rd *runData, from, to int64, format string, args ...any) {
	res.Violations += n
	if len(res.First) < MaxShown {
		says := fmt.Sprintf(format, slices.DeleteFunc(slices.Clone(args), func(a any) bool { _, ok := a.(shows); return ok })...) + rd.faultsIn(from, to)
		res.First = append(res.First, rd.where()+": "+says)
		res.Proofs = append(res.Proofs, rd.proof(says, to, args))
	}
}

// shows are calls that show a violation beside those its message names: an
// argument of violation and violations that the message does not print.
type shows []*history.Call

// proof is a violation as data: the calls among its message's arguments
// (and its shows), in the order the run made them, and the faults of the
// run before to.
func (rd *runData) proof(says string, to int64, args []any) results.CheckProof {
	h := rd.run.Header
	p := results.CheckProof{File: rd.file, Run: h.Run, Seed: h.Seed, Says: says, Ops: []results.ProofOp{}}
	seen := map[int]bool{}
	var calls []*history.Call
	for _, a := range args {
		switch a := a.(type) {
		case *history.Call:
			calls = append(calls, a)
		case shows:
			calls = append(calls, a...)
		}
	}
	for _, c := range calls {
		i := rd.callIndex(c)
		if i < 0 || seen[i] {
			continue
		}
		seen[i] = true
		p.Ops = append(p.Ops, results.ProofOp{Call: i, Editor: c.Editor, Session: c.Session, Tool: c.Tool, ServerTool: h.ServerTools[c.Tool],
			Note: c.Note, Tab: c.Tab, Intent: c.Intent, Expected: c.ExpectedVersion, Base: c.BaseVersion, Key: c.Key,
			Outcome: string(c.Outcome), Version: c.Version, ErrorKind: c.ErrorKind, InvokeNS: c.Invoke, ReturnNS: c.Return, What: c.String()})
	}
	slices.SortFunc(p.Ops, func(a, b results.ProofOp) int { return cmp.Compare(a.InvokeNS, b.InvokeNS) })
	for _, f := range proofFaults(rd.run.Faults, p.Ops, to) {
		p.Faults = append(p.Faults, results.ProofFault{Kind: f.Kind, StartNS: f.Start, EndNS: f.End, Detail: f.Detail})
	}
	return p
}

// proofFaults returns the faults that bear on a proof's operations: those
// under way while the operations ran (from the first one's invocation to
// the last one's return), and the last one that began before them, which
// may have struck what they read; at most maxFaultsShown, the ones nearest
// the operations' end. Without operations it is the last faults before to.
// A fault that ended long before the operations, or began after them (near
// the final read, say), does not show them anything.
func proofFaults(faults []history.Fault, ops []results.ProofOp, to int64) []history.Fault {
	var out []history.Fault
	if len(ops) == 0 {
		for _, f := range faults {
			if f.Start < to {
				out = append(out, f)
			}
		}
		return out[max(0, len(out)-maxFaultsShown):]
	}
	from, end := ops[0].InvokeNS, int64(0)
	for _, op := range ops {
		end = max(end, op.ReturnNS, op.InvokeNS)
	}
	before := -1 // the last fault that began before from
	for i, f := range faults {
		switch {
		case f.Start >= end:
		case f.Start < from && f.End <= from:
			before = i
		default:
			out = append(out, f)
		}
	}
	if before >= 0 {
		out = append([]history.Fault{faults[before]}, out...)
	}
	if n := len(out); n > maxFaultsShown {
		out = out[n-maxFaultsShown:]
	}
	return out
}

// callIndex returns the place of c, a call of the run, among its calls; -1
// when c is not one of them.
func (rd *runData) callIndex(c *history.Call) int {
	for i := range rd.run.Calls {
		if &rd.run.Calls[i] == c {
			return i
		}
	}
	return -1
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
