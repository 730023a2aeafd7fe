package check

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/results"
)

// partition is one versioned register of a run: the Note's version, or under
// guard tab one tab's. Its calls are those that read or write that version.
type partition struct {
	key   string
	calls []int // indices into the run's calls
	// verdict is the register's linearizability; order, when it is OK, a
	// linearization: indices into the run's calls.
	verdict results.CheckVerdict
	order   []int
}

// registerOf returns the register a call reads or writes, or "" for a call that
// touches no version: a fail other than a conflict (it definitely did
// nothing and saw no version), a read whose outcome is info (it observed
// nothing), a listing of attachments.
func registerOf(c *history.Call, guard contract.Guard) string {
	switch {
	case c.Outcome == contract.Fail && !c.IsConflict():
		return ""
	case c.Outcome == contract.Info && !c.IsWrite():
		return ""
	}
	switch {
	case c.IsPersonAction():
		if guard == contract.GuardTab && c.EditsTab() {
			return c.Note + "/" + c.Tab
		}
		return c.Note
	}
	switch c.Tool {
	case contract.ToolEditNoteTab, contract.ToolReadNoteTab, contract.ToolReadSheetRange:
		if guard == contract.GuardTab {
			return c.Note + "/" + c.Tab
		}
		return c.Note
	case contract.ToolListNoteTabs, contract.ToolCreateNoteTab, contract.ToolAddNoteSource:
		return c.Note
	}
	return ""
}

// partitions splits a run's calls into registers, sorted by key.
func partitions(r *history.Run) []*partition {
	byKey := map[string]*partition{}
	var parts []*partition
	for i := range r.Calls {
		key := registerOf(&r.Calls[i], r.Header.Variant.Guard)
		if key == "" {
			continue
		}
		p := byKey[key]
		if p == nil {
			p = &partition{key: key}
			byKey[key] = p
			parts = append(parts, p)
		}
		p.calls = append(p.calls, i)
	}
	slices.SortFunc(parts, func(a, b *partition) int { return cmp.Compare(a.key, b.key) })
	return parts
}

// opInput is a call as the register model sees it.
type opInput struct {
	tool     string
	write    bool
	expected string
	// conditional: the write compares expected with the version (guard note or
	// tab); versionFirst: it compares before looking its key up.
	conditional  bool
	versionFirst bool
	// sameAllowed: a write may commit the version it replaces (ms versions).
	sameAllowed bool
	// unversioned: a person's action, which writes without a compare and
	// makes a version nobody is told.
	unversioned bool
}

// opOutput is what the client saw: an ok call (version, replayed), a
// conflict (version the current one the reply named, "" when it named none)
// or an info write.
type opOutput struct {
	outcome  contract.Outcome
	conflict bool
	version  string
	replayed bool
}

// regState is the register's version: known, or unknown since a write whose
// outcome is unknown applied (not from: a version the write cannot have made
// when hasFrom is set, the one it replaced).
type regState struct {
	known   bool
	version string
	hasFrom bool
	from    string
}

// bind makes st agree with an observed version v, if it can.
func bind(st regState, v string, in opInput) (regState, bool) {
	if st.known {
		return st, st.version == v
	}
	if st.hasFrom && !in.sameAllowed && v == st.from {
		return st, false
	}
	return regState{known: true, version: v}, true
}

// step is the sequential specification of a versioned register under the
// contract's writes:
//
//   - a read returns the version;
//   - a committed write under a guard requires the version to equal its
//     expected_version, and sets the version it returned; without a guard it
//     sets the version whatever it was;
//   - a replayed write changes nothing and, under version-first, requires the
//     version to equal expected_version (the compare came first);
//   - a conflict requires the version to differ from expected_version and to
//     equal the current version it reported; a conflict that names no
//     current version (a server's refusal that says none) only requires the
//     version to differ, and binds nothing;
//   - a person's action (no compare, no version returned) sets a version
//     nobody saw, which the next observation fixes, other than the one it
//     replaced unless versions may repeat (ms);
//   - a write whose outcome is info either applied or did not. Not applying
//     is the same as taking effect after everything else (its return is open),
//     so here it applies when its compare passes, leaving a version nobody saw,
//     which the next observation fixes. On a version already unknown both
//     branches leave an unknown version.
func step(st regState, in opInput, out opOutput) (bool, regState) {
	if !in.write {
		ns, ok := bind(st, out.version, in)
		return ok, ns
	}
	switch {
	case out.outcome == contract.OK && in.unversioned:
		if !st.known || in.sameAllowed {
			return true, regState{}
		}
		return true, regState{hasFrom: true, from: st.version}
	case out.outcome == contract.OK:
		if out.replayed {
			if in.conditional && in.versionFirst {
				ns, ok := bind(st, in.expected, in)
				return ok, ns
			}
			return true, st
		}
		if in.conditional {
			if _, ok := bind(st, in.expected, in); !ok {
				return false, st
			}
		}
		return true, regState{known: true, version: out.version}
	case out.conflict:
		if !in.conditional || out.version == in.expected {
			return false, st
		}
		if out.version == "" {
			return !st.known || st.version != in.expected, st
		}
		ns, ok := bind(st, out.version, in)
		return ok, ns
	case out.outcome == contract.Info:
		if !st.known {
			return true, regState{}
		}
		if in.conditional && st.version != in.expected {
			return true, st
		}
		return true, regState{hasFrom: true, from: st.version}
	}
	return false, st
}

// model is the register model for porcupine. Its StepContext also stops the
// search when ctx (the caller's, not porcupine's) ends.
func model(ctx context.Context) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return regState{} },
		Step: func(st, in, out any) (bool, any) {
			return step(st.(regState), in.(opInput), out.(opOutput))
		},
		StepContext: func(_ context.Context, st, in, out any) (bool, any) {
			if ctx.Err() != nil {
				return false, st
			}
			return step(st.(regState), in.(opInput), out.(opOutput))
		},
		Hash: func(st any) uint64 {
			s := st.(regState)
			h := fnv.New64a()
			h.Write([]byte(s.version))
			h.Write([]byte{0, b2u(s.known), b2u(s.hasFrom)})
			h.Write([]byte(s.from))
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string {
			return describeOp(in.(opInput), out.(opOutput))
		},
		DescribeState: func(st any) string {
			s := st.(regState)
			switch {
			case s.known:
				return s.version
			case s.hasFrom:
				return "unknown (not " + s.from + ")"
			}
			return "unknown"
		},
		// An operation's metadata is its call, described only when porcupine
		// draws its page.
		DescribeOperationMetadata: func(m any) string {
			if c, ok := m.(*history.Call); ok {
				return c.String()
			}
			return ""
		},
	}
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func describeOp(in opInput, out opOutput) string {
	if !in.write {
		return fmt.Sprintf("%s → %s", in.tool, out.version)
	}
	if in.unversioned {
		return fmt.Sprintf("%s → %s", in.tool, out.outcome)
	}
	s := fmt.Sprintf("%s expected %s → ", in.tool, in.expected)
	switch {
	case out.outcome == contract.OK:
		s += "ok " + out.version
		if out.replayed {
			s += " (replayed)"
		}
	case out.conflict && out.version != "":
		s += "conflict, current " + out.version
	case out.conflict:
		s += "conflict (no current version named)"
	default:
		s += string(out.outcome)
	}
	return s
}

// operations turns a partition's calls into porcupine operations. A write
// whose outcome is info stays open until the end of the run.
func (rd *runData) operations(p *partition) []porcupine.Operation {
	v := rd.run.Header.Variant
	type client struct {
		editor  string
		session int
	}
	clients := map[client]int{}
	ops := make([]porcupine.Operation, len(p.calls))
	for j, i := range p.calls {
		c := &rd.run.Calls[i]
		who := client{c.Editor, c.Session}
		id, ok := clients[who]
		if !ok {
			id = len(clients)
			clients[who] = id
		}
		ret := c.Return
		if c.Outcome == contract.Info {
			ret = rd.end
		}
		ops[j] = porcupine.Operation{
			ClientId: id,
			Input: opInput{tool: c.Tool, write: c.IsWrite() || c.IsPersonAction(), expected: c.ExpectedVersion,
				conditional: v.Guard != contract.GuardNone && !c.IsPersonAction(), versionFirst: v.Order == contract.OrderVersionFirst,
				sameAllowed: v.VersionFormat == contract.FormatMS, unversioned: c.IsPersonAction()},
			Output:   opOutput{outcome: c.Outcome, conflict: c.IsConflict(), version: c.Version, replayed: c.Replayed},
			Call:     c.Invoke,
			Return:   ret,
			Metadata: c,
		}
	}
	return ops
}

// linJob is one partition to check.
type linJob struct {
	rd *runData
	p  *partition
	// set by the worker
	info    porcupine.LinearizationInfo
	illegal string // what does not fit, for an illegal partition
	at      int64  // when the call it cannot take returned
	shows   shows  // the calls that show it: the last of the prefix, then the misfit
}

// checkLinearizability checks every register of every run with porcupine,
// partitions in parallel, each with what is left of the check's time.
func checkLinearizability(ctx context.Context, runs []*runData, res *results.CheckResult, opts Options, rep *results.CheckReport) {
	var jobs []*linJob
	for _, rd := range runs {
		for _, p := range rd.parts {
			jobs = append(jobs, &linJob{rd: rd, p: p})
		}
	}
	deadline, _ := ctx.Deadline()
	work := make(chan *linJob)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range work {
				j.check(ctx, time.Until(deadline))
			}
		})
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()

	for _, rd := range runs {
		rd.res.Linearizable = results.CheckOK
	}
	for _, j := range jobs {
		switch j.p.verdict {
		case results.CheckOK:
			res.Judged++
		case results.CheckViolated:
			res.Judged++
			violation(res, j.rd, j.at, "register %s: %s", j.p.key, j.illegal, j.shows)
			j.rd.res.Linearizable = results.CheckViolated
			if opts.Visualize && rep.Visualization == nil {
				j.info.AddAnnotations(j.rd.annotations())
				var buf bytes.Buffer
				if err := porcupine.Visualize(model(context.Background()), j.info, &buf); err == nil {
					rep.Visualization = buf.Bytes()
				}
			}
		default:
			res.Unjudged++
			if j.rd.res.Linearizable == results.CheckOK {
				j.rd.res.Linearizable = results.CheckUnknown
			}
		}
	}
	if res.Unjudged > 0 && res.Reason == "" {
		res.Reason = plural.Count(res.Unjudged, "register") + " not judged in time"
	}
}

// check runs porcupine on one partition and keeps a linearization when there is
// one, or what does not fit when there is none.
func (j *linJob) check(ctx context.Context, left time.Duration) {
	j.p.verdict = results.CheckUnknown
	if ctx.Err() != nil || left <= 0 {
		return
	}
	ops := j.rd.operations(j.p)
	result, info := porcupine.CheckOperationsVerbose(model(ctx), ops, left)
	if ctx.Err() != nil {
		return // the search was cut short: whatever it says means nothing
	}
	partials := info.PartialLinearizations()
	switch result {
	case porcupine.Ok:
		j.p.verdict = results.CheckOK
		if lin := longest(partials); lin != nil {
			j.p.order = make([]int, len(lin))
			for k, id := range lin {
				j.p.order[k] = j.p.calls[id]
			}
		}
	case porcupine.Illegal:
		j.p.verdict = results.CheckViolated
		j.info = info
		j.illegal = j.misfit(ops, partials)
	}
}

// misfit describes why a partition has no linearization: the longest
// linearizable prefix found, and the call that returned first among those it
// could not take.
func (j *linJob) misfit(ops []porcupine.Operation, partials [][][]int) string {
	prefix := longest(partials)
	in := make([]bool, len(ops))
	for _, id := range prefix {
		in[id] = true
	}
	first := -1
	for id := range ops {
		if !in[id] && (first < 0 || ops[id].Return < ops[first].Return) {
			first = id
		}
	}
	s := fmt.Sprintf("no linearization of its %s; the longest linearizable prefix holds %d", plural.Count(len(ops), "operation"), len(prefix))
	// The proof: the last writes of the prefix, what the register held
	// when the call that does not fit came, then that call.
	for k := len(prefix) - 1; k >= 0 && len(j.shows) < maxPrefixShown; k-- {
		if c := &j.rd.run.Calls[j.p.calls[prefix[k]]]; c.IsWrite() {
			j.shows = append(j.shows, c)
		}
	}
	if first >= 0 {
		c := &j.rd.run.Calls[j.p.calls[first]]
		j.shows = append(j.shows, c)
		s += "; it cannot take: " + c.String()
		j.at = c.Return
		if c.Outcome == contract.Info {
			j.at = j.rd.end
		}
	} else {
		j.at = j.rd.end
	}
	return s
}

// maxPrefixShown is how many writes of the longest linearizable prefix a
// linearizability violation's proof shows before the call that does not fit.
const maxPrefixShown = 3

// annotations marks the faults of the run on porcupine's timeline, on a row
// of their own.
func (rd *runData) annotations() []porcupine.Annotation {
	var out []porcupine.Annotation
	for _, f := range rd.run.Faults {
		out = append(out, porcupine.Annotation{Tag: "faults", Start: f.Start, End: f.End,
			Description: f.Kind, Details: f.String(), BackgroundColor: "#f4c7c3"})
	}
	return out
}

// longest returns the longest of the partial linearizations porcupine found for
// one partition checked on its own (the first of the longest), nil when there
// is none. For a linearizable partition it is a linearization.
func longest(partials [][][]int) []int {
	var lin []int
	if len(partials) == 1 {
		for _, pl := range partials[0] {
			if len(pl) > len(lin) {
				lin = pl
			}
		}
	}
	return lin
}
