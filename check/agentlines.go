package check

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// checkPersonLines holds every line the person appended against the final
// text, and names, for each one missing, the write that dropped it: along
// the register's linearization (the order of return when it has none), a
// line is in the text after a write when it was in the text of the view the
// write was against (Call.ReadVersion) and the write did not drop it, or the
// write added it; the write after which it was in the text no more dropped
// it. Judged: the person's acknowledged lines.
func checkPersonLines(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	eachRun(ctx, served(runs), res, func(rd *runData) {
		a := rd.agentsOf()
		type line struct {
			note, tab, text string
			call            int
		}
		var lines []line
		seen := map[[2]string]bool{}
		for i := range rd.run.Calls {
			c := &rd.run.Calls[i]
			if !isPerson(c) || c.Outcome != contract.OK || c.Tool != contract.ToolEditNoteTab ||
				c.Operation != string(contract.OpReplaceText) || c.Intent == "" || seen[[2]string{c.Note, c.Intent}] {
				continue
			}
			seen[[2]string{c.Note, c.Intent}] = true
			lines = append(lines, line{c.Note, c.Tab, c.Intent, i})
		}
		if len(lines) == 0 {
			notApplicable(res, rd, "the person appended no line (serve ran without --person, or its actions had no append)")
			return
		}
		finalLines := map[string]map[string]bool{}
		for _, l := range lines {
			f := rd.finals[l.note]
			if f == nil {
				unjudged(res, 1, rd, "no final state of note %s holds the person's lines", l.note)
				continue
			}
			if finalLines[l.note] == nil {
				finalLines[l.note] = map[string]bool{}
				for _, t := range strings.Split(f.Text, "\n") {
					finalLines[l.note][t] = true
				}
			}
			res.Judged++
			if finalLines[l.note][l.text] {
				continue
			}
			added := &rd.run.Calls[l.call]
			by, why := a.dropper(l.note, l.tab, l.text)
			if by < 0 {
				violation(res, rd, rd.end, "the person's line %q (%s) is not in the final text, and no recorded write dropped it: %s",
					l.text, added, why)
				continue
			}
			w := &rd.run.Calls[by]
			if ar := a.agent(w); ar != nil {
				ar.PersonLinesDropped++
			}
			violation(res, rd, w.Return, "the person's line %q (%s) is not in the final text: %s dropped it with %s: %s",
				l.text, added, who(w), w, why)
		}
	})
}

// tabOrder returns the calls on a Note's tab in the order of its register's
// linearization, or, when it has none, in the order they returned.
func (rd *runData) tabOrder(note, tab string) []int {
	key := note
	if rd.run.Header.Variant.Guard == contract.GuardTab {
		key = note + "/" + tab
	}
	var order []int
	for _, p := range rd.parts {
		if p.key != key {
			continue
		}
		order = p.order
		if p.verdict != results.CheckOK || order == nil {
			order = slices.Clone(p.calls)
			slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(rd.run.Calls[x].Return, rd.run.Calls[y].Return) })
		}
	}
	var out []int
	for _, i := range order {
		if c := &rd.run.Calls[i]; c.Note == note && c.Tab == tab {
			out = append(out, i)
		}
	}
	return out
}

// dropper returns the write after which line was no longer in the text of
// the Note's tab, and how it dropped it; -1 when no recorded write did.
func (a *agentRun) dropper(note, tab, line string) (int, string) {
	calls := a.rd.run.Calls
	present := false
	atView := map[int]bool{} // whether the line was in the text a view showed
	by, why := -1, "a write whose outcome is unknown may have"
	for _, i := range a.rd.tabOrder(note, tab) {
		c := &calls[i]
		if c.Outcome != contract.OK {
			continue
		}
		if c.Tool == contract.ToolReadNoteTab {
			atView[i] = present
			continue
		}
		if c.Replayed || !(c.Tool == contract.ToolEditNoteTab && c.Operation == string(contract.OpReplaceText) || c.EditsTab()) {
			continue
		}
		v := a.view(i)
		had := v >= 0 && atView[v]
		now := (had && !slices.Contains(c.Drops, line)) || slices.Contains(c.Adds, line)
		if present && !now {
			by = i
			switch {
			case had:
				why = fmt.Sprintf("the line was in what its session last saw (version %s), and not in the text it wrote", c.ReadVersion)
			case v >= 0 && c.BaseVersion != "":
				why = fmt.Sprintf("it sent expected_version %s with a text built on version %s; the line came later", c.ExpectedVersion, c.BaseVersion)
			case v >= 0:
				why = fmt.Sprintf("its session last saw version %s, before the line, and wrote that text back with expected_version %s", c.ReadVersion, c.ExpectedVersion)
			default:
				why = "it wrote a whole text without reading the tab first"
			}
		}
		present = now
		if isView(c) {
			atView[i] = present
		}
	}
	return by, why
}

// checkStaleWrites finds the texts clients committed that were built on a
// view older than the version they sent (Call.BaseVersion on a committed
// replace_text): what a client does that takes the fresh version after a
// conflict and resends the text it built before. The version check cannot
// stop it; only the client can. Judged: the clients' committed replace_text
// calls.
func checkStaleWrites(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	eachRun(ctx, served(runs), res, func(rd *runData) {
		a := rd.agentsOf()
		for _, sk := range a.order {
			var conflict *history.Call // the session's last conflict
			for _, i := range a.sessions[sk] {
				c := &rd.run.Calls[i]
				ar := a.agent(c)
				if ar == nil {
					break
				}
				if c.IsConflict() {
					conflict = c
				}
				if c.Tool != contract.ToolEditNoteTab || c.Operation != string(contract.OpReplaceText) || c.Outcome != contract.OK || c.Replayed {
					continue
				}
				res.Judged++
				if c.BaseVersion == "" {
					continue
				}
				ar.StaleWrites++
				after := ""
				if conflict != nil && conflict.Note == c.Note {
					after = ", after the conflict of " + conflict.String()
				}
				violation(res, rd, c.Return, "%s committed a text built on version %s with expected_version %s%s: it took the fresh version and kept the old text (%s)",
					who(c), c.BaseVersion, c.ExpectedVersion, after, c)
			}
		}
	})
}
