package check

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// checkStale finds stale overwrites: a committed edit whose content came from a
// read of its tab after which another acknowledged write to that tab took
// effect, so that the edit replaced content it never saw. It walks each
// register's linearization (from the linearizability check): the view a
// write's content came from is the latest read of the tab by the same
// session, or committed edit of it by that session, before the write, that
// returned the write's base version (its expected_version, or the
// base_version the editor recorded). A write with no such view is not
// judged; a register with no linearization leaves its writes unjudged.
//
// In a served history (notesbench serve --history), whose clients are not
// notesbench's editors, only the edits that replace a tab's whole content
// are judged: an agent may add a slide or set cells without reading first,
// and overwrites nothing it did not see.
//
// Without a guard every write that races another one is stale. Under a guard a
// stale write can only pass when the editor sends a version fresher than its
// content (the refresh policy), or when a write leaves the version unchanged
// (ms versions), which this check catches with the time order of the calls.
func checkStale(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	for _, rd := range runs {
		for _, p := range rd.parts {
			if ctx.Err() != nil {
				res.Unjudged++
				continue
			}
			if p.verdict != results.CheckOK || p.order == nil {
				for _, i := range p.calls {
					if c := &rd.run.Calls[i]; isContentWrite(c) {
						res.Unjudged++
					}
				}
				if res.Reason == "" && res.Unjudged > 0 {
					res.Reason = fmt.Sprintf("%s: register %s has no linearization to judge its writes on", rd.where(), p.key)
				}
				continue
			}
			rd.staleIn(p, res)
		}
	}
}

// sharedSession says, of two calls of one session of stateless requests,
// that check cannot tell them one client's: the requests of one clientInfo
// over one connection may be those of several clients sharing it. It says
// nothing of any other two calls.
func sharedSession(a, b *history.Call) string {
	if a == nil || b == nil || !a.Stateless || !b.Stateless || a.Editor != b.Editor || a.ClientVersion != b.ClientVersion || a.Session != b.Session {
		return ""
	}
	return "; both are stateless requests of one clientInfo over one connection, of one client or of several sharing it"
}

// isContentWrite reports whether c is a committed edit, the writes this check
// judges.
func isContentWrite(c *history.Call) bool {
	return c.Tool == contract.ToolEditNoteTab && c.Outcome == contract.OK && !c.Replayed
}

// isTabRead reports whether c reads a tab's content.
func isTabRead(c *history.Call) bool {
	return c.Tool == contract.ToolReadNoteTab || c.Tool == contract.ToolReadSheetRange
}

// replacesWhole reports whether c replaces the whole content of its tab
// (replace_text, replace_tab_data), rather than adding to it.
func replacesWhole(c *history.Call) bool {
	return c.Operation == string(contract.OpReplaceText) || c.Operation == string(contract.OpReplaceTabData)
}

// staleIn judges the committed edits of one register along its linearization.
func (rd *runData) staleIn(p *partition, res *results.CheckResult) {
	calls := rd.run.Calls
	type tabKey struct{ note, tab string }
	epoch := map[tabKey]int{}     // acknowledged writes to a tab so far
	at := map[int]int{}           // call → its tab's epoch at its place in the order
	pos := map[int]int{}          // call → its place in the order
	writers := map[tabKey][]int{} // acknowledged writes to a tab, in order
	for k, i := range p.order {
		c := &calls[i]
		if c.Tool != contract.ToolEditNoteTab && !isTabRead(c) {
			continue
		}
		t := tabKey{c.Note, c.Tab}
		at[i], pos[i] = epoch[t], k
		if isContentWrite(c) {
			epoch[t]++
			writers[t] = append(writers[t], i)
		}
	}
	// Under versions no two states share (ordered, not cut to milliseconds),
	// a read that returned the version one committed write made saw that
	// write: it stands right after it. The model lets a linearization put it
	// before, when a write whose outcome is unknown left a version nobody saw
	// that the read then names; judged at that place, the write would look
	// like one the reader never saw.
	if f := rd.run.Header.Variant.VersionFormat; f.Ordered() && f != contract.FormatMS {
		maker := map[string]int{} // version → the place of the one committed write that made it, -1 if several did
		for k, i := range p.order {
			if c := &calls[i]; c.IsWrite() && c.Outcome == contract.OK && !c.Replayed && c.Version != "" {
				if _, twice := maker[c.Version]; twice {
					k = -1
				}
				maker[c.Version] = k
			}
		}
		for _, i := range p.order {
			c := &calls[i]
			if k, ok := maker[c.Version]; ok && k > pos[i] && isTabRead(c) && c.Outcome == contract.OK {
				ws := writers[tabKey{c.Note, c.Tab}]
				n, _ := slices.BinarySearchFunc(ws, k+1, func(x, p int) int { return cmp.Compare(pos[x], p) })
				at[i], pos[i] = n, k+1
			}
		}
	}
	// Sweep the calls in the order they were made, keeping per session, tab and
	// version the latest read: a write's base read is the latest read of its
	// tab by its session that returned its base version, made before it.
	type reader struct {
		editor  string
		session int
		tab     tabKey
		version string
	}
	byInvoke := slices.Clone(p.calls)
	slices.SortStableFunc(byInvoke, func(a, b int) int { return cmp.Compare(calls[a].Invoke, calls[b].Invoke) })
	// A session's own committed edit tells it the content at the version it
	// made, as a read would: a base after it in the order, its epoch one up.
	type seen struct{ call, epoch, pos int }
	latest := map[reader]seen{}
	for _, i := range byInvoke {
		c := &calls[i]
		t := tabKey{c.Note, c.Tab}
		if isTabRead(c) && c.Outcome == contract.OK {
			latest[reader{c.Editor, c.Session, t, c.Version}] = seen{i, at[i], pos[i]}
			continue
		}
		if !isContentWrite(c) {
			continue
		}
		w := c
		base, ok := latest[reader{w.Editor, w.Session, t, w.Base()}]
		latest[reader{w.Editor, w.Session, t, w.Version}] = seen{i, at[i] + 1, pos[i] + 1}
		if rd.served && !replacesWhole(w) {
			continue // an agent's partial edit (a slide, cells) needs no read
		}
		if !ok {
			unjudged(res, 1, rd, "no read gave the content of %s", w)
			continue
		}
		res.Judged++
		if at[i] == base.epoch {
			continue
		}
		// The first acknowledged write to the tab between the read and w.
		var between *history.Call
		ws := writers[t]
		if k, _ := slices.BinarySearchFunc(ws, base.pos, func(x, p int) int { return cmp.Compare(pos[x], p) }); k < len(ws) && pos[ws[k]] < pos[i] {
			between = &calls[ws[k]]
		}
		rd.res.StaleOverwrites++
		violation(res, rd, w.Return, "%s overwrote %s, which came after the read its content came from (%s)%s", w, between, &calls[base.call], sharedSession(w, between))
	}
}
