package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/pgstore"
	"github.com/notesbench/notesbench/store"
)

// Every variant, the same random calls on both stores, one at a time on a fixed
// clock: every result object, error and final state must be byte-identical.
// The calls mix good ones with stale versions, replayed and reused keys,
// unknown Notes and tabs, operations that do not fit their tab, and the
// person's actions, so that every rule and every check order is exercised.
func TestSameCallsSameResults(t *testing.T) {
	if testing.Short() {
		t.Skip("80 calls of every variant on both stores")
	}
	pg := &pgstore.Target{URL: pgtest.URL(t)}
	var variants []contract.Variant
	for _, g := range []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab} {
		for _, f := range []contract.VersionFormat{contract.FormatCounter, contract.FormatMS, contract.FormatUSSuffix} {
			for _, o := range []contract.Order{contract.OrderKeyFirst, contract.OrderVersionFirst} {
				variants = append(variants, contract.Variant{Guard: g, VersionFormat: f, Order: o})
			}
		}
	}
	for i, v := range variants {
		t.Run(fmt.Sprintf("%s-%s-%s", v.Guard, v.VersionFormat, v.Order), func(t *testing.T) {
			t.Parallel()
			sameCalls(t, []contract.Target{&store.Target{InMemory: true}, pg}, v, uint64(i+1), 80)
		})
	}
}

// twin is one store under test: its backend, two sessions and its clock.
type twin struct {
	b        contract.Backend
	sessions [2]contract.Session
	clock    *contracttest.SettableClock
}

func sameCalls(t *testing.T, targets []contract.Target, v contract.Variant, seed uint64, steps int) {
	ctx := context.Background()
	twins := make([]*twin, len(targets))
	for i, tg := range targets {
		tw := &twin{clock: contracttest.NewClock()}
		b, err := tg.Open(ctx, contract.RunSpec{Name: "same-calls", Variant: v, Clock: tw.clock, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		tw.b = b
		t.Cleanup(func() {
			for _, s := range tw.sessions {
				if s != nil {
					s.Close()
				}
			}
			if err := b.Close(); err != nil {
				t.Error(err)
			}
		})
		for _, n := range []string{"note-1", "note-2"} {
			if err := b.CreateNote(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		for j := range tw.sessions {
			if tw.sessions[j], err = b.Session(ctx); err != nil {
				t.Fatal(err)
			}
		}
		twins[i] = tw
	}
	g := &callGen{rand: rand.New(rand.NewPCG(seed, 77)), tabs: []string{"markdown", "files", "sources"},
		versions: []contract.Version{"1"}}
	if v.VersionFormat != contract.FormatCounter {
		g.versions = nil // learnt from the first listing
	}
	for step := 0; step < steps; step++ {
		d := time.Duration(g.rand.IntN(4)) * 400 * time.Microsecond
		c := g.next()
		var outs []string
		for _, tw := range twins {
			tw.clock.Advance(d)
			outs = append(outs, c.do(ctx, tw.sessions[c.session]))
		}
		if outs[0] != outs[1] {
			t.Fatalf("step %d, %s:\nsqlite:   %s\npostgres: %s", step, c, outs[0], outs[1])
		}
		g.learn(outs[0])
	}
	var finals []string
	for _, tw := range twins {
		finals = append(finals, snapshot(ctx, tw.sessions[0]))
	}
	if finals[0] != finals[1] {
		t.Fatalf("final states differ:\n%s", firstDifference(finals[0], finals[1]))
	}
}

// call is one generated call: a tool with JSON arguments, or a person action.
type call struct {
	session int
	tool    string
	args    string
	person  func(ctx context.Context, p contract.Person) (any, error)
	name    string
}

func (c call) String() string {
	if c.person != nil {
		return c.name
	}
	return c.tool + " " + c.args
}

// do makes the call and renders its outcome: the result object, or the
// person action's result and error.
func (c call) do(ctx context.Context, s contract.Session) string {
	if c.person != nil {
		res, err := c.person(ctx, s.(contract.Person))
		b, _ := json.Marshal(res)
		return fmt.Sprintf("%s error=%v", b, err)
	}
	raw, err := contract.Call(ctx, s, c.tool, json.RawMessage(c.args))
	if err != nil {
		return "failure: " + err.Error()
	}
	return string(raw)
}

// callGen draws calls from what the calls so far revealed: versions, tab IDs,
// keys and cursors.
type callGen struct {
	rand     *rand.Rand
	versions []contract.Version
	tabs     []string
	keys     []string
	cursor   string
	nkey     int
	// lastWrite is the last tool write made, which a resend repeats.
	lastWrite *call
}

func (g *callGen) pick(xs ...string) string { return xs[g.rand.IntN(len(xs))] }

func (g *callGen) note() string {
	if g.rand.IntN(10) == 0 {
		return g.pick("note-2", "note-9")
	}
	return "note-1"
}

func (g *callGen) tab() string {
	if g.rand.IntN(12) == 0 {
		return "slides-9-zz"
	}
	return g.tabs[g.rand.IntN(len(g.tabs))]
}

// version is mostly the last one seen, sometimes an older one or garbage.
func (g *callGen) version() string {
	var v contract.Version = "1"
	switch n := len(g.versions); {
	case n == 0:
	case g.rand.IntN(10) < 7:
		v = g.versions[n-1]
	default:
		v = g.versions[g.rand.IntN(n)]
	}
	if g.rand.IntN(40) == 0 {
		v = "not-a-version"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// key is mostly new, sometimes one used before (a resend, or a reuse by
// another tool).
func (g *callGen) key() string {
	if len(g.keys) > 0 && g.rand.IntN(4) == 0 {
		return g.keys[g.rand.IntN(len(g.keys))]
	}
	g.nkey++
	k := fmt.Sprintf("k%d", g.nkey)
	g.keys = append(g.keys, k)
	return k
}

func (g *callGen) next() call {
	if g.lastWrite != nil && g.rand.IntN(8) == 0 { // a resend after a lost reply
		return *g.lastWrite
	}
	c := g.draw()
	switch c.tool {
	case contract.ToolEditNoteTab, contract.ToolCreateNoteTab, contract.ToolAddNoteSource:
		g.lastWrite = &c
	}
	return c
}

func (g *callGen) draw() call {
	c := call{session: g.rand.IntN(2)}
	note := g.note()
	switch g.rand.IntN(16) {
	case 0:
		c.tool, c.args = contract.ToolListNoteTabs, fmt.Sprintf(`{"note_id":%q}`, note)
	case 1:
		c.tool, c.args = contract.ToolReadNoteTab, fmt.Sprintf(`{"note_id":%q,"tab_id":%q}`, note, g.tab())
	case 2:
		c.tool, c.args = contract.ToolReadSheetRange, fmt.Sprintf(`{"note_id":%q,"tab_id":%q,"start_row":%d,"rows":%d,"cols":%d}`,
			note, g.tab(), g.rand.IntN(3), g.rand.IntN(4), g.rand.IntN(4))
	case 3:
		cursor := g.cursor
		if g.rand.IntN(5) == 0 {
			cursor = "after-x"
		}
		c.tool, c.args = contract.ToolListNoteAttachments, fmt.Sprintf(`{"note_id":%q,"kind":%q,"limit":%d,"cursor":%q}`,
			note, g.pick("sources", "sources", "files"), 1+g.rand.IntN(3), cursor)
	case 4, 5, 6, 7:
		var op string
		switch g.rand.IntN(6) {
		case 0, 1:
			op = fmt.Sprintf(`"operation":"replace_text","text":"line %d"`, g.rand.IntN(1000))
		case 2:
			op = fmt.Sprintf(`"operation":"slide_add","title":"s%d","body":"b"`, g.rand.IntN(100))
		case 3:
			op = `"operation":"slides_add_outline","slides":[{"title":"a"},{"title":"b","notes":"n"}]`
		case 4:
			op = fmt.Sprintf(`"operation":"sheet_set_range","start_row":%d,"start_col":%d,"values":[[%d,"x"],[true,null]]`,
				g.rand.IntN(4), g.rand.IntN(3), g.rand.IntN(50))
		default:
			op = g.pick(`"operation":"replace_tab_data","data":{"slides":[{"title":"only"}]}`,
				`"operation":"replace_tab_data","data":{"sheets":[{"sheet_id":"s1","name":"S","cells":[[1,2]]}]}`)
		}
		c.tool, c.args = contract.ToolEditNoteTab, fmt.Sprintf(`{"note_id":%q,"tab_id":%q,"expected_version":%s,"idempotency_key":%q,%s}`,
			note, g.tab(), g.version(), g.key(), op)
	case 8, 9:
		extra := ""
		typ := g.pick("slides", "sheet")
		if typ == "slides" && g.rand.IntN(2) == 0 {
			extra = `,"slides":[{"title":"t1"},{"title":"t2"}]`
		}
		c.tool, c.args = contract.ToolCreateNoteTab, fmt.Sprintf(`{"note_id":%q,"expected_version":%s,"idempotency_key":%q,"tab_type":%q,"label":%q%s}`,
			note, g.version(), g.key(), typ, g.pick("", " Deck ", "Data"), extra)
	case 10, 11:
		c.tool, c.args = contract.ToolAddNoteSource, fmt.Sprintf(`{"note_id":%q,"expected_version":%s,"idempotency_key":%q,"title":" T%d ","url":%q}`,
			note, g.version(), g.key(), g.rand.IntN(9), g.pick("https://example.org/a", "http://example.org/b?x=1", "https://example.org/a#f"))
	case 12:
		tab, pos := g.tab(), g.rand.IntN(7)-1
		c.name = fmt.Sprintf("move %s %s to %d", note, tab, pos)
		c.person = func(ctx context.Context, p contract.Person) (any, error) { return nil, p.MoveTab(ctx, note, tab, pos) }
	case 13:
		tab, label := g.tab(), g.pick(" B ", "", "C")
		c.name = fmt.Sprintf("rename %s %s to %q", note, tab, label)
		c.person = func(ctx context.Context, p contract.Person) (any, error) {
			return nil, p.RenameTab(ctx, note, tab, label)
		}
	case 14:
		typ := contract.TabType(g.pick("slides", "sheet", "markdown"))
		c.name = fmt.Sprintf("add %s %s", note, typ)
		c.person = func(ctx context.Context, p contract.Person) (any, error) { return p.AddTab(ctx, note, typ, "") }
	default:
		if g.rand.IntN(2) == 0 {
			tab, row := g.tab(), g.rand.IntN(4)
			c.name = fmt.Sprintf("set cells %s %s row %d", note, tab, row)
			c.person = func(ctx context.Context, p contract.Person) (any, error) {
				return nil, p.SetCells(ctx, note, tab, "", row, 1, [][]any{{"p"}})
			}
		} else {
			text := fmt.Sprintf("typed %d", g.rand.IntN(100))
			c.name = fmt.Sprintf("set text %s %q", note, text)
			c.person = func(ctx context.Context, p contract.Person) (any, error) { return nil, p.SetText(ctx, note, text) }
		}
	}
	return c
}

// learn takes versions, tab IDs and cursors from an outcome.
func (g *callGen) learn(out string) {
	var m map[string]any
	if json.Unmarshal([]byte(out), &m) != nil {
		return
	}
	for _, f := range []string{"version", "current_version"} {
		if v, ok := m[f]; ok {
			b, _ := json.Marshal(v)
			var ver contract.Version
			if json.Unmarshal(b, &ver) == nil {
				g.versions = append(g.versions, ver)
			}
		}
	}
	if id, ok := m["tab_id"].(string); ok && !strings.HasPrefix(id, "slides-9") {
		known := false
		for _, t := range g.tabs {
			known = known || t == id
		}
		if !known {
			g.tabs = append(g.tabs, id)
		}
	}
	if c, ok := m["next_cursor"].(string); ok {
		g.cursor = c
	} else if _, ok := m["items"]; ok {
		g.cursor = ""
	}
}

// snapshot renders everything the tools show of both Notes.
func snapshot(ctx context.Context, s contract.Session) string {
	var b strings.Builder
	for _, n := range []string{"note-1", "note-2"} {
		l, err := s.ListNoteTabs(ctx, n)
		fmt.Fprintf(&b, "%s version %s err %v\n", n, l.Version, err)
		for _, tab := range l.Tabs {
			c, err := s.ReadNoteTab(ctx, n, tab.TabID)
			j, _ := json.Marshal(c)
			fmt.Fprintf(&b, "%+v %s %v\n", tab, j, err)
		}
	}
	return b.String()
}
