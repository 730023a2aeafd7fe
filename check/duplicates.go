package check

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// checkDuplicates finds what one intent made more than once, in the final
// state: tabs (create_note_tab), sources (add_note_source) and lines of text.
// The calls tie each intent to what it sent (a tab's label, a source's URL);
// intents and names that share a name form a group, and every tab or source of
// a group beyond one per intent is a duplicate. It also checks that a replayed
// key returned the key's first result.
func checkDuplicates(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	eachRun(ctx, runs, res, func(rd *runData) {
		notes := map[string]*noteCreations{}
		var order []string
		for i := range rd.run.Calls {
			c := &rd.run.Calls[i]
			if !c.IsWrite() {
				continue
			}
			nc := notes[c.Note]
			if nc == nil {
				nc = newNoteCreations()
				notes[c.Note] = nc
				order = append(order, c.Note)
			}
			nc.add(c)
		}
		for _, note := range order {
			nc := notes[note]
			f := rd.finals[note]
			if f == nil {
				if nc.intents() > 0 {
					unjudged(res, nc.intents(), rd, "no final state of note %s", note)
				}
				continue
			}
			res.Judged += nc.intents()
			var tabs, sources []string
			for _, t := range f.Tabs {
				tabs = append(tabs, string(t.Type)+" "+t.Label)
			}
			for _, s := range f.Sources {
				sources = append(sources, s.URL)
			}
			for _, d := range nc.tabs.duplicates(tabs) {
				rd.res.Duplicates += d.extra
				violations(res, d.extra, rd, math.MinInt64, rd.end, "note %s: %d tabs for %s", note, d.made, d.what)
			}
			for _, d := range nc.sources.duplicates(sources) {
				rd.res.Duplicates += d.extra
				violations(res, d.extra, rd, math.MinInt64, rd.end, "note %s: %d sources for %s", note, d.made, d.what)
			}
			count := map[string]int{}
			for _, l := range strings.Split(f.Text, "\n") {
				if nc.lines[l] {
					count[l]++
				}
			}
			for _, l := range slices.Sorted(maps.Keys(count)) {
				if n := count[l]; n > 1 {
					rd.res.Duplicates += n - 1
					violations(res, n-1, rd, math.MinInt64, rd.end, "note %s: the line %q is in the text %d times", note, l, n, rd.writesOf(note, l))
				}
			}
		}
		checkReplays(rd, res)
	})
}

// writesOf are the write calls on note that meant to add intent, whatever
// their outcome: the calls a duplicate came from.
func (rd *runData) writesOf(note, intent string) shows {
	var out shows
	for i := range rd.run.Calls {
		if c := &rd.run.Calls[i]; c.IsWrite() && c.Note == note && c.Intent == intent {
			out = append(out, c)
		}
	}
	return out
}

// noteCreations is what a Note's write calls meant to create.
type noteCreations struct {
	tabs    *groups // intents and labels of create_note_tab calls
	sources *groups // intents and URLs of add_note_source calls
	lines   map[string]bool
}

func newNoteCreations() *noteCreations {
	return &noteCreations{tabs: newGroups(), sources: newGroups(), lines: map[string]bool{}}
}

func (nc *noteCreations) add(c *history.Call) {
	switch {
	case c.Tool == contract.ToolCreateNoteTab:
		nc.tabs.link(intentOr(c, "label "+c.Label), c.TabType+" "+c.Label)
	case c.Tool == contract.ToolAddNoteSource:
		nc.sources.link(intentOr(c, "url "+c.URL), c.URL)
	case c.Operation == string(contract.OpReplaceText) && c.Intent != "":
		nc.lines[c.Intent] = true
	}
}

func (nc *noteCreations) intents() int {
	return len(nc.tabs.intents) + len(nc.sources.intents) + len(nc.lines)
}

func intentOr(c *history.Call, def string) string {
	if c.Intent != "" {
		return "intent " + c.Intent
	}
	return def
}

// groups ties intents to the names they sent (labels or URLs): a union-find
// over both, so that intents sharing a name, and names sharing an intent, are
// one group.
type groups struct {
	parent  map[string]string
	intents map[string]bool
	names   map[string]bool
}

func newGroups() *groups {
	return &groups{parent: map[string]string{}, intents: map[string]bool{}, names: map[string]bool{}}
}

func (g *groups) find(x string) string {
	for g.parent[x] != x {
		g.parent[x] = g.parent[g.parent[x]]
		x = g.parent[x]
	}
	return x
}

func (g *groups) node(x string) {
	if _, ok := g.parent[x]; !ok {
		g.parent[x] = x
	}
}

func (g *groups) link(intent, name string) {
	i, n := "i\x00"+intent, "n\x00"+name
	g.node(i)
	g.node(n)
	g.intents[intent], g.names[name] = true, true
	a, b := g.find(i), g.find(n)
	if a != b {
		if a > b {
			a, b = b, a
		}
		g.parent[b] = a
	}
}

// dup is a group that made more than it meant to.
type dup struct {
	what  string // the group's intents, for a message
	made  int
	extra int
}

// duplicates counts, per group, the final items (labels or URLs) in it beyond
// one per intent.
func (g *groups) duplicates(items []string) []dup {
	made := map[string]int{}
	for _, it := range items {
		if g.names[it] {
			made[g.find("n\x00"+it)]++
		}
	}
	intents := map[string][]string{}
	for in := range g.intents {
		root := g.find("i\x00" + in)
		intents[root] = append(intents[root], in)
	}
	var out []dup
	for _, root := range slices.Sorted(maps.Keys(made)) {
		ins := intents[root]
		if extra := made[root] - len(ins); extra > 0 {
			slices.Sort(ins)
			out = append(out, dup{what: strings.Join(ins, ", "), made: made[root], extra: extra})
		}
	}
	return out
}

// checkReplays checks that every replayed result of a key equals the key's
// first result: the one its committing call returned, or, when that reply was
// lost, the first replay.
func checkReplays(rd *runData, res *results.CheckResult) {
	type result struct {
		version, tabID, sourceID string
		call                     int
	}
	first := map[[3]string]result{}
	for i := range rd.run.Calls {
		c := &rd.run.Calls[i]
		if !c.IsWrite() || c.Outcome != contract.OK || c.Replayed {
			continue
		}
		k := [3]string{c.Note, c.Key, c.Tool}
		if _, ok := first[k]; !ok {
			first[k] = result{c.Version, c.TabID, c.SourceID, i}
		}
	}
	for i := range rd.run.Calls {
		c := &rd.run.Calls[i]
		if !c.IsWrite() || c.Outcome != contract.OK || !c.Replayed {
			continue
		}
		k := [3]string{c.Note, c.Key, c.Tool}
		got := result{c.Version, c.TabID, c.SourceID, i}
		want, ok := first[k]
		if !ok {
			first[k] = got
			continue
		}
		if got.version != want.version || got.tabID != want.tabID || got.sourceID != want.sourceID {
			rd.res.ReplayMismatches++
			violation(res, rd, c.Return, "a replay differs from its key's first result: %s, first %s", c, &rd.run.Calls[want.call])
		}
	}
}
