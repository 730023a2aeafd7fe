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

// checkLost holds every acknowledged intent against the final state: a line of
// text must be a line of the Note's text, a cell must hold its value, a created
// tab must be in the tab bar, an added source among the sources. Counts are per
// editor and per distinct intent: an intent acknowledged twice (a replay) is
// one intent.
func checkLost(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	type intent struct{ editor, note, id string }
	eachRun(ctx, runs, res, func(rd *runData) {
		editors := map[string]*results.CheckEditor{}
		var order []string
		seen := map[intent]bool{}
		lines := map[string]map[string]bool{}
		for i := range rd.run.Calls {
			c := &rd.run.Calls[i]
			if editors[c.Editor] == nil {
				editors[c.Editor] = &results.CheckEditor{Editor: c.Editor}
				order = append(order, c.Editor)
			}
			if c.Outcome != contract.OK || !c.IsWrite() {
				continue
			}
			id, present, judged := rd.holds(c, lines)
			if id == "" || seen[intent{c.Editor, c.Note, id}] {
				continue
			}
			seen[intent{c.Editor, c.Note, id}] = true
			if !judged {
				unjudged(res, 1, rd, "no final state holds what %s added", c)
				continue
			}
			res.Judged++
			e := editors[c.Editor]
			e.Acknowledged++
			if !present {
				e.Lost++
				rd.res.Lost++
				// Lost after it was made: the faults since then may be why.
				if w := rd.remover(c); w != nil {
					violations(res, 1, rd, c.Invoke, rd.end, "acknowledged, missing from the final state: %s; then %s replaced the text with one built on a version before it", c, w)
				} else {
					violations(res, 1, rd, c.Invoke, rd.end, "acknowledged, missing from the final state: %s", c)
				}
			}
		}
		for _, name := range order {
			rd.res.Editors = append(rd.res.Editors, *editors[name])
		}
	})
}

// remover returns the write that most likely removed what c, an
// acknowledged edit of a tab's whole text, added: the first committed
// replace of that text after c returned whose content came from a version
// made before c committed (its base version, or expected version, none of
// the versions committed writes made from c on). nil when no write fits.
func (rd *runData) remover(c *history.Call) *history.Call {
	if c.Tool != contract.ToolEditNoteTab || c.Operation != string(contract.OpReplaceText) {
		return nil
	}
	later := map[string]bool{} // the versions made from c on
	for i := range rd.run.Calls {
		w := &rd.run.Calls[i]
		if w.Tool == contract.ToolEditNoteTab && w.Outcome == contract.OK && w.Return >= c.Return && w.Version != "" {
			later[w.Version] = true
		}
	}
	var first *history.Call
	for i := range rd.run.Calls {
		w := &rd.run.Calls[i]
		base := cmp.Or(w.BaseVersion, w.ExpectedVersion)
		if w == c || w.Tool != contract.ToolEditNoteTab || w.Operation != c.Operation || w.Note != c.Note || w.Tab != c.Tab ||
			w.Outcome != contract.OK || w.Replayed || w.Return <= c.Return || base == "" || later[base] {
			continue
		}
		if first == nil || w.Return < first.Return {
			first = w
		}
	}
	return first
}

// holds returns what an acknowledged write added (its identity within the
// Note), whether the final state holds it, and whether the final state could
// say. A write that says nothing it adds has no identity.
func (rd *runData) holds(c *history.Call, lines map[string]map[string]bool) (id string, present, judged bool) {
	f := rd.finals[c.Note]
	switch c.Tool {
	case contract.ToolCreateNoteTab:
		has := f != nil && slices.ContainsFunc(f.Tabs, func(t history.FinalTab) bool { return t.TabID == c.TabID })
		return "tab " + c.TabID, has, f != nil
	case contract.ToolAddNoteSource:
		has := f != nil && slices.ContainsFunc(f.Sources, func(s contract.Attachment) bool { return s.ID == c.SourceID })
		return "source " + c.SourceID, has, f != nil
	}
	if c.Intent == "" {
		return "", false, false
	}
	id = "intent " + c.Intent
	if f == nil {
		return id, false, false
	}
	switch contract.Operation(c.Operation) {
	case contract.OpReplaceText:
		if tabType(f, c.Tab) != contract.TypeMarkdown {
			return id, false, false
		}
		set := lines[c.Note]
		if set == nil {
			set = map[string]bool{}
			for _, l := range strings.Split(f.Text, "\n") {
				set[l] = true
			}
			lines[c.Note] = set
		}
		return id, set[c.Intent], true
	case contract.OpSheetSetRange:
		v, ok := cell(f, c.Tab, c.At)
		if !ok {
			return id, false, false
		}
		return id, v == c.Intent, true
	}
	return id, false, false
}

// tabType returns the type of a tab in a final state's tab bar, "" when absent.
func tabType(f *history.Final, tabID string) contract.TabType {
	for _, t := range f.Tabs {
		if t.TabID == tabID {
			return t.Type
		}
	}
	return ""
}

// cell returns the text of the cell a sheet_set_range call started at, and
// whether the final state read that tab's sheets. An empty or missing cell is
// "".
func cell(f *history.Final, tabID string, at *history.Cell) (string, bool) {
	sheets, ok := f.Sheets[tabID]
	if !ok || at == nil || len(sheets) == 0 {
		return "", false
	}
	sh := &sheets[0]
	if at.SheetID != "" {
		sh = nil
		for i := range sheets {
			if sheets[i].SheetID == at.SheetID {
				sh = &sheets[i]
			}
		}
		if sh == nil {
			return "", true
		}
	}
	if at.Row >= len(sh.Cells) || at.Col >= len(sh.Cells[at.Row]) || sh.Cells[at.Row][at.Col] == nil {
		return "", true
	}
	return fmt.Sprint(sh.Cells[at.Row][at.Col]), true
}
