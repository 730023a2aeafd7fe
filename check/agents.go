package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// The agent checks, which Run applies beside the five to a served history
// (history.ExperimentServe): a history notesbench serve recorded of every
// call its clients made, and of the person who edited beside them. They
// judge the clients, each named by its MCP clientInfo, from what the server
// saw: what each client had read, what its writes did to it, the keys it
// sent.
const (
	// PersonLines: every line the person appended is in the final text;
	// each one that is not is named with the client write that dropped it.
	PersonLines = "person-lines"
	// StaleWrites: no client committed a text built on a view older than
	// the version it sent (took the fresh version after a conflict and kept
	// the old text).
	StaleWrites = "stale-writes"
	// KeyChanges: no client resent a write under another idempotency key
	// after a try of it whose reply said it committed, or said nothing (a
	// reply lost, a failure): a resend the server cannot tell from a new
	// write.
	KeyChanges = "key-changes"
	// TabReferences: no client named a tab by its label or position (a
	// tab_id that is a label or a number), or wrote the tab that had taken
	// the place or label of the one it had been working on, while tab IDs
	// were there to name it by.
	TabReferences = "tab-references"
)

// The verdicts of an agent (results.AgentResult.Verdict).
const (
	// AgentCareful: the agent lost nothing of anyone's and broke no rule of
	// the agent checks.
	AgentCareful = "careful"
	// AgentCareless: it did at least one of what the agent checks find.
	AgentCareless = "careless"
	// AgentIdle: it made no write, so there was nothing to judge.
	AgentIdle = "no writes"
)

// agentChecks are the checks of served histories, in the order a Report
// lists them after the five.
var agentChecks = []aCheck{
	{PersonLines, checkPersonLines},
	{StaleWrites, checkStaleWrites},
	{KeyChanges, checkKeyChanges},
	{TabReferences, checkTabReferences},
}

// served returns the runs of served histories.
func served(runs []*runData) []*runData {
	var out []*runData
	for _, rd := range runs {
		if rd.served {
			out = append(out, rd)
		}
	}
	return out
}

// agentKey names an agent: its clientInfo name and version.
type agentKey struct{ name, version string }

func (k agentKey) String() string {
	if k.version == "" {
		return k.name
	}
	return k.name + " " + k.version
}

// isPerson reports whether c is a call of the scripted person.
func isPerson(c *history.Call) bool {
	return c.Session == history.PersonSession && c.Editor == history.PersonEditor
}

// agentRun is what the agent checks learn of one served run, made once.
type agentRun struct {
	rd     *runData
	agents []*results.AgentResult // in order of first call
	of     map[agentKey]*results.AgentResult
	// sessions holds each session's calls in the order it made them.
	sessions map[sessionKey][]int
	order    []sessionKey
	// views holds, per session, Note and tab, the calls that showed the
	// session a text of the tab (an ok read, a committed replace_text), in
	// the order they returned.
	views map[viewKey][]int
}

type sessionKey struct {
	editor  string
	session int
}

type viewKey struct {
	sessionKey
	note, tab string
}

// agentsOf returns the agent analysis of a served run, made on first use.
func (rd *runData) agentsOf() *agentRun {
	if rd.agents != nil {
		return rd.agents
	}
	a := &agentRun{rd: rd, of: map[agentKey]*results.AgentResult{}, sessions: map[sessionKey][]int{}, views: map[viewKey][]int{}}
	calls := rd.run.Calls
	for i := range calls {
		c := &calls[i]
		sk := sessionKey{c.Editor, c.Session}
		if _, ok := a.sessions[sk]; !ok {
			a.order = append(a.order, sk)
		}
		a.sessions[sk] = append(a.sessions[sk], i)
		if isView(c) {
			vk := viewKey{sk, c.Note, c.Tab}
			a.views[vk] = append(a.views[vk], i)
		}
		if isPerson(c) {
			continue
		}
		k := agentKey{c.Editor, c.ClientVersion}
		ar := a.of[k]
		if ar == nil {
			ar = &results.AgentResult{File: rd.file, Run: rd.run.Header.Run, Agent: k.String(), Name: k.name, Version: k.version,
				Sessions: []int{}, Why: []string{}}
			a.of[k] = ar
			a.agents = append(a.agents, ar)
		}
		ar.Calls++
		if !slices.Contains(ar.Sessions, c.Session) {
			ar.Sessions = append(ar.Sessions, c.Session)
		}
		if c.IsWrite() {
			ar.Writes++
			if c.Outcome == contract.OK {
				ar.Committed++
			}
		}
	}
	for _, sk := range a.order {
		slices.SortStableFunc(a.sessions[sk], func(x, y int) int { return cmp.Compare(calls[x].Invoke, calls[y].Invoke) })
	}
	for _, ar := range a.agents {
		slices.Sort(ar.Sessions)
	}
	for _, vs := range a.views {
		slices.SortStableFunc(vs, func(x, y int) int { return cmp.Compare(calls[x].Return, calls[y].Return) })
	}
	a.summarize()
	rd.agents = a
	return a
}

// isView reports whether c showed its session the text of a tab: an ok
// read_note_tab, or a replace_text of its own that committed.
func isView(c *history.Call) bool {
	switch {
	case c.Outcome != contract.OK:
		return false
	case c.Tool == contract.ToolReadNoteTab:
		return true
	case c.Tool == contract.ToolEditNoteTab && c.Operation == string(contract.OpReplaceText):
		return !c.Replayed
	}
	return false
}

// agent returns the agent of a call, nil for the person's.
func (a *agentRun) agent(c *history.Call) *results.AgentResult {
	if isPerson(c) {
		return nil
	}
	return a.of[agentKey{c.Editor, c.ClientVersion}]
}

// view returns the call that was w's session's last view of its tab, the one
// its Adds and Drops are against (w.ReadVersion), or -1 when it had none.
func (a *agentRun) view(w int) int {
	c := &a.rd.run.Calls[w]
	if c.ReadVersion == "" {
		return -1
	}
	vs := a.views[viewKey{sessionKey{c.Editor, c.Session}, c.Note, c.Tab}]
	calls := a.rd.run.Calls
	k, _ := slices.BinarySearchFunc(vs, c.Invoke, func(v int, t int64) int { return cmp.Compare(calls[v].Return, t) })
	for k--; k >= 0; k-- {
		if calls[vs[k]].Version == c.ReadVersion {
			return vs[k]
		}
	}
	return -1
}

// who names the agent of a call, with its session: "careful-ts 1.0 (session 3)".
func who(c *history.Call) string {
	if isPerson(c) {
		return "the person"
	}
	return fmt.Sprintf("%s (session %d)", agentKey{c.Editor, c.ClientVersion}, c.Session)
}

// summarize counts, per agent, its conflicts and what it did after each,
// and the keys it sent again.
func (a *agentRun) summarize() {
	calls := a.rd.run.Calls
	for _, sk := range a.order {
		type pending struct {
			conflict int
			reread   bool
		}
		after := map[string]*pending{} // per Note, the conflict not yet followed by a write
		keys := map[string]bool{}
		for _, i := range a.sessions[sk] {
			c := &calls[i]
			ar := a.agent(c)
			if ar == nil {
				break
			}
			if !c.IsWrite() {
				if p := after[c.Note]; p != nil && c.Outcome == contract.OK &&
					(c.Tool == contract.ToolReadNoteTab || c.Tool == contract.ToolListNoteTabs || c.Tool == contract.ToolReadSheetRange) {
					p.reread = true
				}
				continue
			}
			if p := after[c.Note]; p != nil {
				if p.reread {
					ar.ReReads++
				}
				if c.BaseVersion != "" {
					ar.Refreshes++
				} else {
					ar.ReApplies++
				}
				delete(after, c.Note)
			}
			if c.IsConflict() {
				ar.Conflicts++
				after[c.Note] = &pending{conflict: i}
			}
			if keys[c.Note+"\x00"+c.Key] {
				ar.SameKeyResends++
			}
			keys[c.Note+"\x00"+c.Key] = true
		}
	}
	// Lines an agent added in more than one committed write, which the final
	// text holds more than once.
	for _, ar := range a.agents {
		added := map[[2]string]int{}
		for i := range calls {
			c := &calls[i]
			if a.agent(c) != ar || c.Outcome != contract.OK || c.Replayed || c.Tool != contract.ToolEditNoteTab {
				continue
			}
			for _, l := range distinct(c.Adds) {
				added[[2]string{c.Note, l}]++
			}
		}
		for k, n := range added {
			f := a.rd.finals[k[0]]
			if n < 2 || f == nil {
				continue
			}
			if copies := countLine(f.Text, k[1]); copies > 1 {
				ar.Duplicates += min(copies, n) - 1
			}
		}
	}
}

// countLine returns how many lines of text are line.
func countLine(text, line string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			n++
		}
	}
	return n
}

// distinct returns the lines of ls, each once.
func distinct(ls []string) []string {
	var out []string
	for _, l := range ls {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// agentResults returns the agents of every served run, each with its
// verdict: nil when no run is served, empty when no client called.
func agentResults(runs []*runData) []results.AgentResult {
	if len(served(runs)) == 0 {
		return nil
	}
	out := []results.AgentResult{}
	for _, rd := range served(runs) {
		for _, ar := range rd.agentsOf().agents {
			r := *ar
			var why []string
			add := func(n int, one, many string) {
				if n == 1 {
					why = append(why, one)
				} else if n > 1 {
					why = append(why, fmt.Sprintf(many, n))
				}
			}
			add(r.PersonLinesDropped, "dropped 1 of the person's lines", "dropped %d of the person's lines")
			add(r.StaleWrites, "committed 1 text built on an older version than it sent", "committed %d texts built on an older version than they sent")
			add(r.KeyChanges, "resent 1 write under a new key", "resent %d writes under a new key")
			add(r.TabReferences, "named 1 tab by label or position", "named %d tabs by label or position")
			r.Why = append([]string{}, why...)
			switch {
			case len(why) > 0:
				r.Verdict = AgentCareless
			case r.Writes == 0:
				r.Verdict = AgentIdle
			default:
				r.Verdict = AgentCareful
			}
			out = append(out, r)
		}
	}
	return out
}
