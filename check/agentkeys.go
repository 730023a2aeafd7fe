package check

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// identity is what a write means to make, as the server can tell it: the
// one line a replace_text adds to its session's last view, the type and
// label of a tab create_note_tab makes, the URL of a source; "" for any
// other write.
func identity(c *history.Call) string {
	switch {
	case c.Tool == contract.ToolEditNoteTab && c.Operation == string(contract.OpReplaceText) && len(c.Adds) == 1:
		return "the line " + strconv.Quote(c.Adds[0])
	case c.Tool == contract.ToolCreateNoteTab:
		return "the " + c.TabType + " tab " + strconv.Quote(c.Label)
	case c.Tool == contract.ToolAddNoteSource:
		return "the source " + c.URL
	}
	return ""
}

// checkKeyChanges finds the resends that changed their idempotency key: a
// client's write that means to make what a write of its own made, or may
// have made, before (an ok, or an info: a reply lost, a failure), under
// another key. The server's key lookup exists for that resend, and cannot
// see it under a new key: the write is made twice. A try that follows a
// conflict of the same thing may take a new key, since the conflict made
// nothing; the resend that chose a new key first is the one counted. Judged: the clients' writes whose identity
// the server can tell.
func checkKeyChanges(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	eachRun(ctx, served(runs), res, func(rd *runData) {
		a := rd.agentsOf()
		calls := rd.run.Calls
		for _, ar := range a.agents {
			var mine []int
			for i := range calls {
				if a.agent(&calls[i]) == ar && calls[i].IsWrite() {
					mine = append(mine, i)
				}
			}
			slices.SortStableFunc(mine, func(x, y int) int { return cmp.Compare(calls[x].Invoke, calls[y].Invoke) })
			type made struct {
				first int             // the first write that made it, or may have
				keys  map[string]bool // the keys of those, and of resends counted
			}
			byID := map[[2]string]*made{}
			prev := map[[2]string]*history.Call{} // the agent's last write of each
			for _, i := range mine {
				c := &calls[i]
				id := identity(c)
				if id == "" {
					continue
				}
				res.Judged++
				k := [2]string{c.Note, id}
				m := byID[k]
				p := prev[k]
				prev[k] = c
				// A new key right after a conflict is the client's right:
				// the conflict made nothing.
				if m != nil && !m.keys[c.Key] && p != nil && !p.IsConflict() {
					m.keys[c.Key] = true
					ar.KeyChanges++
					first := &calls[m.first]
					violation(res, rd, c.Return, "%s resent %s under a new key %q after %s had %s: %s", who(c), id, c.Key,
						first, landed(first), c)
				}
				if c.Outcome == contract.OK || c.Outcome == contract.Info {
					if m == nil {
						byID[k] = &made{first: i, keys: map[string]bool{c.Key: true}}
					} else {
						m.keys[c.Key] = true
					}
				}
			}
		}
	})
}

// landed says what a write's outcome told its client.
func landed(c *history.Call) string {
	if c.Outcome == contract.OK {
		return "committed"
	}
	return "an unknown outcome (" + c.ErrorKind + ")"
}

// checkTabReferences finds clients that named a tab by what may change,
// when its tab ID was there to name it by: a call whose tab_id was not found
// and is a tab's label, or a position in the bar, in the session's last
// listing; and a write to a Slides or Sheet tab that, since the session last
// worked on another tab of that type, took that tab's place in the bar, or
// its label, while that tab is still there (the person moved or renamed
// them): a reference kept by position or label, resolved afresh to the
// wrong tab. Judged: the clients' calls that name a tab.
func checkTabReferences(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	eachRun(ctx, served(runs), res, func(rd *runData) {
		a := rd.agentsOf()
		calls := rd.run.Calls
		for _, sk := range a.order {
			var listings []int // the session's ok list_note_tabs calls, in order
			last := map[string]int{}
			for _, i := range a.sessions[sk] {
				c := &calls[i]
				ar := a.agent(c)
				if ar == nil {
					break
				}
				if c.Tool == contract.ToolListNoteTabs && c.Outcome == contract.OK {
					listings = append(listings, i)
					continue
				}
				if c.Tab == "" || c.IsPersonAction() {
					continue
				}
				res.Judged++
				now := listingBefore(calls, listings, c)
				if c.Outcome == contract.Fail && c.ErrorKind == contract.KindNotFound && now >= 0 {
					if how := byWhat(calls[now].Listed, c.Tab); how != "" {
						ar.TabReferences++
						violation(res, rd, c.Return, "%s named a tab by its %s (tab_id %q), not by its ID: %s", who(c), how, c.Tab, c)
						continue
					}
				}
				if c.Outcome == contract.Fail && c.ErrorKind == contract.KindNotFound {
					continue
				}
				prev, ok := last[c.Note]
				last[c.Note] = i
				if !ok || c.Tool != contract.ToolEditNoteTab || calls[prev].Tab == c.Tab {
					continue
				}
				then := listingBefore(calls, listings, &calls[prev])
				if then < 0 || now < 0 || then == now {
					continue
				}
				if how := tookPlace(calls[then].Listed, calls[now].Listed, calls[prev].Tab, c.Tab); how != "" {
					ar.TabReferences++
					violation(res, rd, c.Return, "%s wrote tab %s, which had taken the %s of tab %s, the one it was working on (%s): a reference by %s, not by ID: %s",
						who(c), c.Tab, how, calls[prev].Tab, &calls[prev], how, c)
				}
			}
		}
	})
}

// listingBefore returns the last of listings (a session's, in the order it
// made them) that returned before c was made, -1 when none did.
func listingBefore(calls []history.Call, listings []int, c *history.Call) int {
	for k := len(listings) - 1; k >= 0; k-- {
		if calls[listings[k]].Return < c.Invoke {
			return listings[k]
		}
	}
	return -1
}

// byWhat says whether tabID names a tab of bar by what is not its ID: its
// "label" or its "position"; "" when neither.
func byWhat(bar []history.FinalTab, tabID string) string {
	for _, t := range bar {
		if t.TabID == tabID {
			return ""
		}
	}
	for _, t := range bar {
		if strings.EqualFold(strings.TrimSpace(t.Label), strings.TrimSpace(tabID)) {
			return "label"
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(tabID)); err == nil && n >= 0 && n <= len(bar) {
		return "position"
	}
	return ""
}

// tookPlace says whether tab to, in the bar now, holds the "position" or
// the "label" tab from held in the bar then, which from no longer holds
// though it is still there; both Slides or both Sheet tabs. "" when not.
func tookPlace(then, now []history.FinalTab, from, to string) string {
	at := func(bar []history.FinalTab, id string) (int, history.FinalTab) {
		for i, t := range bar {
			if t.TabID == id {
				return i, t
			}
		}
		return -1, history.FinalTab{}
	}
	pf, f := at(then, from)
	pf2, f2 := at(now, from)
	pt2, t2 := at(now, to)
	if pf < 0 || pf2 < 0 || pt2 < 0 || f.Type != t2.Type || (f.Type != contract.TypeSlides && f.Type != contract.TypeSheet) {
		return ""
	}
	switch {
	case pt2 == pf && pf2 != pf:
		return "position"
	case t2.Label == f.Label && f2.Label != f.Label:
		return "label"
	}
	return ""
}
