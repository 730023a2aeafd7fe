package contracttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// The clauses below hold for every write tool: edit_note_tab (each of its
// operations), create_note_tab and add_note_source. Each is stated once, over
// the table writeKinds returns, so that a tool or an operation a rule skips
// fails the clause by name.

// writeKind is one kind of write: a tool, and for edit_note_tab one operation
// on a tab it fits.
type writeKind struct {
	name string
	tool string
	// tab is the tab whose content the write changes, whose version guards it
	// under GuardTab; "" for a Note-level write, guarded by the Note version.
	tab string
	// send makes the write with expected version v and idempotency key key;
	// n makes its content differ from other writes of the kind.
	send func(s contract.Session, v contract.Version, key string, n int) (any, error)
}

// writeKinds adds a Slides and a Sheet tab to h's Note and returns every kind
// of write, with the tabs its edits go to.
func (h *harness) writeKinds() []writeKind {
	h.t.Helper()
	deck := h.create(h.c, contract.TypeSlides, "Deck").TabID
	sheet := h.create(h.c, contract.TypeSheet, "Numbers").TabID
	edit := func(name, tab string, op contract.Operation, fill func(r *contract.EditRequest, n int)) writeKind {
		return writeKind{name: "edit_note_tab " + name, tool: contract.ToolEditNoteTab, tab: tab,
			send: func(s contract.Session, v contract.Version, key string, n int) (any, error) {
				r := contract.EditRequest{NoteID: note, TabID: tab, ExpectedVersion: v, IdempotencyKey: key, Operation: op}
				fill(&r, n)
				return s.EditNoteTab(ctx, r)
			}}
	}
	return []writeKind{
		edit("replace_text", "markdown", contract.OpReplaceText, func(r *contract.EditRequest, n int) {
			r.Text = fmt.Sprintf("text %d", n)
		}),
		edit("replace_tab_data", deck, contract.OpReplaceTabData, func(r *contract.EditRequest, n int) {
			r.Data = json.RawMessage(fmt.Sprintf(`{"slides":[{"title":"data %d"}]}`, n))
		}),
		edit("slide_add", deck, contract.OpSlideAdd, func(r *contract.EditRequest, n int) {
			r.Title, r.Body = fmt.Sprintf("slide %d", n), "body"
		}),
		edit("slides_add_outline", deck, contract.OpSlidesAddOutline, func(r *contract.EditRequest, n int) {
			r.Slides = []contract.Slide{{Title: fmt.Sprintf("outline %d a", n)}, {Title: fmt.Sprintf("outline %d b", n), Notes: "n"}}
		}),
		edit("sheet_set_range", sheet, contract.OpSheetSetRange, func(r *contract.EditRequest, n int) {
			r.StartRow, r.StartCol, r.Values = n%5, 1, [][]any{{fmt.Sprintf("cell %d", n)}}
		}),
		{name: contract.ToolCreateNoteTab, tool: contract.ToolCreateNoteTab,
			send: func(s contract.Session, v contract.Version, key string, n int) (any, error) {
				return s.CreateNoteTab(ctx, contract.CreateRequest{NoteID: note, ExpectedVersion: v, IdempotencyKey: key,
					TabType: contract.TypeSheet, Label: fmt.Sprintf("created %d", n)})
			}},
		{name: contract.ToolAddNoteSource, tool: contract.ToolAddNoteSource,
			send: func(s contract.Session, v contract.Version, key string, n int) (any, error) {
				return s.AddNoteSource(ctx, contract.SourceRequest{NoteID: note, ExpectedVersion: v, IdempotencyKey: key,
					Title: fmt.Sprintf("page %d", n), URL: fmt.Sprintf("https://example.org/page/%d", n)})
			}},
	}
}

// guarded returns the version a write of kind w is checked against under
// variant v, as a client reads it: the tab's under GuardTab for a write to a
// tab, the Note's otherwise.
func (h *harness) guarded(s contract.Session, v contract.Variant, w writeKind) contract.Version {
	h.t.Helper()
	if v.WithDefaults().Guard == contract.GuardTab && w.tab != "" {
		return h.read(s, w.tab).Version
	}
	return h.list(s).Version
}

// land makes a write of kind w with the current version and a fresh key, which
// must succeed, and returns its result.
func (h *harness) land(s contract.Session, v contract.Variant, w writeKind, n int) any {
	h.t.Helper()
	res, err := w.send(s, h.guarded(s, v, w), h.key(), n)
	if err != nil {
		h.t.Fatalf("%s with the current version: %v", w.name, err)
	}
	return res
}

// resultJSON renders a write's result without its replayed flag, and says
// whether the flag was set: a replay must equal the first result but for it.
func resultJSON(t testing.TB, res any) (string, bool) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	replayed := m["replayed"] == true
	delete(m, "replayed")
	b, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), replayed
}

// versionOf returns the version a write's result reports.
func versionOf(t testing.TB, res any) contract.Version {
	t.Helper()
	switch r := res.(type) {
	case contract.EditResult:
		return r.Version
	case contract.CreateResult:
		return r.Version
	case contract.SourceResult:
		return r.Version
	}
	t.Fatalf("a write returned a %T", res)
	return ""
}

// conflictNaming fails unless err is a version conflict naming current.
func conflictNaming(t testing.TB, what string, err error, current contract.Version) {
	t.Helper()
	var ce *contract.ConflictError
	switch {
	case !errors.As(err, &ce):
		t.Fatalf("%s: %v, want a version conflict", what, err)
	case ce.Current != current:
		t.Fatalf("%s: the conflict names version %s, the current version is %s", what, ce.Current, current)
	}
}

// guardsAndOrders are the variants the write clauses run under: each guard
// that compares versions, each order.
func guardsAndOrders() []contract.Variant {
	var vs []contract.Variant
	for _, g := range []contract.Guard{contract.GuardNote, contract.GuardTab} {
		for _, o := range []contract.Order{contract.OrderKeyFirst, contract.OrderVersionFirst} {
			vs = append(vs, contract.Variant{Guard: g, Order: o})
		}
	}
	return vs
}

func variantName(v contract.Variant) string {
	v = v.WithDefaults()
	return fmt.Sprintf("%s-%s-%s", v.Guard, v.VersionFormat, v.Order)
}

// A write of every kind with a stale expected_version and a fresh key is a
// version conflict naming the current version, and changes nothing: under
// each guard, in each order. Under GuardNone the same write lands.
func testStaleVersionIsAConflict(t *testing.T, cfg Config) {
	for _, v := range append(guardsAndOrders(), contract.Variant{Guard: contract.GuardNone}) {
		t.Run(variantName(v), func(t *testing.T) {
			h := cfg.open(t, v, 0)
			for i, w := range h.writeKinds() {
				stale := h.guarded(h.c, v, w)
				h.land(h.c, v, w, 2*i) // the register moves on
				current := h.guarded(h.c, v, w)
				if current == stale {
					t.Fatalf("%s left the version it guards at %s", w.name, stale)
				}
				before := h.snapshot(h.c)
				res, err := w.send(h.c, stale, h.key(), 2*i+1)
				if v.Guard == contract.GuardNone {
					if err != nil {
						t.Fatalf("%s with stale version %s under guard none: %v, want it to land", w.name, stale, err)
					}
					continue
				}
				if err == nil {
					t.Fatalf("%s with stale version %s landed: %+v", w.name, stale, res)
				}
				conflictNaming(t, fmt.Sprintf("%s with stale version %s", w.name, stale), err, current)
				if after := h.snapshot(h.c); after != before {
					t.Fatalf("%s with a stale version changed the Note:\nbefore\n%s\nafter\n%s", w.name, before, after)
				}
			}
		})
	}
}

// A resend with the key of a committed write returns the write's first result,
// marked replayed, and changes nothing: for every kind of write, under each
// guard and order. Under key-first the resend's stale version does not matter;
// under version-first it is a conflict, and the resend with the current
// version is the replay.
func testReplayReturnsTheFirstResult(t *testing.T, cfg Config) {
	for _, v := range guardsAndOrders() {
		t.Run(variantName(v), func(t *testing.T) {
			h := cfg.open(t, v, 0)
			for i, w := range h.writeKinds() {
				sent, key := h.guarded(h.c, v, w), h.key()
				first, err := w.send(h.c, sent, key, i)
				if err != nil {
					t.Fatalf("%s: %v", w.name, err)
				}
				want, replayed := resultJSON(t, first)
				if replayed {
					t.Fatalf("%s: a first write is marked replayed: %s", w.name, want)
				}
				before := h.snapshot(h.c)
				again, err := w.send(h.c, sent, key, i) // the same call: its version is now stale
				if v.WithDefaults().Order == contract.OrderVersionFirst {
					conflictNaming(t, w.name+" resent under version-first", err, h.guarded(h.c, v, w))
					again, err = w.send(h.c, versionOf(t, first), key, i)
				}
				h.replays(w.name+" resent with its key", again, err, want, before)
			}
		})
	}
}

// replays fails the test unless a resend (what) answered again, err with
// want, the first result, marked replayed, and left the Note as it was
// before: the resend was not written a second time.
func (h *harness) replays(what string, again any, err error, want, before string) {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
	if got, replayed := resultJSON(h.t, again); got != want || !replayed {
		h.t.Fatalf("%s: %s (replayed %v), want the first result %s, replayed", what, got, replayed, want)
	}
	if after := h.snapshot(h.c); after != before {
		h.t.Fatalf("%s, and was written again:\nbefore\n%s\nafter\n%s", what, before, after)
	}
}

// A write whose reply was lost is resent with the same key after another
// session wrote: the client re-reads for the fresh version and resends. Under
// key-first the resend with its first, stale version is already the replay;
// under version-first that one conflicts, and the one with the fresh version
// replays. Either way the write is made once: after the resends the Note is
// what the first write and the other session's made of it.
func testLostReplyIsWrittenOnce(t *testing.T, cfg Config) {
	for _, v := range guardsAndOrders() {
		t.Run(variantName(v), func(t *testing.T) {
			h := cfg.open(t, v, 0)
			other := h.session()
			for i, w := range h.writeKinds() {
				sent, key := h.guarded(h.c, v, w), h.key()
				first, err := w.send(h.c, sent, key, 3*i) // its reply is lost: the client never sees it
				if err != nil {
					t.Fatalf("%s: %v", w.name, err)
				}
				want, _ := resultJSON(t, first)
				h.land(other, v, w, 3*i+1) // the version moves on meanwhile
				written := h.snapshot(h.c)
				again, err := w.send(h.c, sent, key, 3*i)
				if v.WithDefaults().Order == contract.OrderVersionFirst {
					conflictNaming(t, w.name+" resent with its stale version under version-first", err, h.guarded(h.c, v, w))
					again, err = w.send(h.c, h.guarded(h.c, v, w), key, 3*i)
				}
				h.replays(w.name+" resent after a lost reply", again, err, want, written)
			}
		})
	}
}

// A key first used by one write tool, sent again by another, is an invalid
// argument naming idempotency_key, and changes nothing: for every pair of
// tools, in each order.
func testKeyAcrossTools(t *testing.T, cfg Config) {
	for _, o := range []contract.Order{contract.OrderKeyFirst, contract.OrderVersionFirst} {
		v := contract.Variant{Order: o}
		t.Run(variantName(v), func(t *testing.T) {
			h := cfg.open(t, v, 0)
			kinds := h.writeKinds()
			byTool := map[string]writeKind{}
			var tools []string
			for _, w := range kinds {
				if _, ok := byTool[w.tool]; !ok {
					byTool[w.tool] = w
					tools = append(tools, w.tool)
				}
			}
			n := 0
			for _, a := range tools {
				for _, b := range tools {
					if a == b {
						continue
					}
					n++
					key := fmt.Sprintf("shared-%d", n)
					if _, err := byTool[a].send(h.c, h.guarded(h.c, v, byTool[a]), key, 2*n); err != nil {
						t.Fatalf("%s: %v", a, err)
					}
					before := h.snapshot(h.c)
					res, err := byTool[b].send(h.c, h.guarded(h.c, v, byTool[b]), key, 2*n+1)
					var bad *contract.InvalidArgumentError
					if !errors.As(err, &bad) || bad.Field != "idempotency_key" {
						t.Fatalf("%s with the key of a %s: %+v, %v; want an invalid argument naming idempotency_key", b, a, res, err)
					}
					if after := h.snapshot(h.c); after != before {
						t.Fatalf("%s with the key of a %s changed the Note", b, a)
					}
				}
			}
		})
	}
}

// A key sent again with other arguments, under a fresh version, makes no
// second write, for every kind of write: it replays the first result (the
// published connector), or, under KeyRefuse, is refused as an invalid
// argument naming idempotency_key. Under both, the same arguments with a
// fresh version find the first result: the version is not compared.
func testKeyReusedWithOtherArguments(t *testing.T, cfg Config) {
	for _, reuse := range []contract.KeyReuse{contract.KeyReplay, contract.KeyRefuse} {
		v := contract.Variant{}
		if reuse == contract.KeyRefuse {
			v.KeyReuse = reuse
		}
		t.Run(string(reuse), func(t *testing.T) {
			h := cfg.open(t, v, 0)
			for i, w := range h.writeKinds() {
				key := fmt.Sprintf("reused-%d", i)
				first, err := w.send(h.c, h.guarded(h.c, v, w), key, 3*i)
				if err != nil {
					t.Fatalf("%s: %v", w.name, err)
				}
				want, _ := resultJSON(t, first)
				before := h.snapshot(h.c)
				res, err := w.send(h.c, h.guarded(h.c, v, w), key, 3*i+1)
				var bad *contract.InvalidArgumentError
				switch {
				case reuse == contract.KeyRefuse && (!errors.As(err, &bad) || bad.Field != "idempotency_key" || bad.Message != contract.ErrKeyReusedMessage):
					t.Fatalf("%s: the key again with other arguments got %+v, %v; want an invalid argument naming idempotency_key", w.name, res, err)
				case reuse == contract.KeyReplay && err != nil:
					t.Fatalf("%s: the key again with other arguments got %v; want the first result", w.name, err)
				}
				if after := h.snapshot(h.c); after != before {
					t.Fatalf("%s: the key again with other arguments changed the Note", w.name)
				}
				again, err := w.send(h.c, h.guarded(h.c, v, w), key, 3*i)
				h.replays(w.name+" resent with its arguments and a fresh version", again, err, want, before)
			}
		})
	}
}

// The patterns every version of a format matches, as list_note_tabs,
// read_note_tab, every write and every conflict report it.
var versionPatterns = map[contract.VersionFormat]*regexp.Regexp{
	contract.FormatCounter:  regexp.MustCompile(`^[1-9][0-9]*$`),
	contract.FormatMS:       regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$`),
	contract.FormatUSSuffix: regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z-[0-9a-f]{6}$`),
}

// Every version a client sees has its format's form: a counter is a decimal
// integer from 1 up, one more after every write; an ms version is the commit
// time in UTC to the millisecond; a us-suffix version the commit time to the
// microsecond, a hyphen and six lower-case hex digits. On a fixed clock the
// timestamp is the clock's. Under each guard.
func testVersionFormats(t *testing.T, cfg Config) {
	for _, f := range []contract.VersionFormat{contract.FormatCounter, contract.FormatMS, contract.FormatUSSuffix} {
		for _, g := range []contract.Guard{contract.GuardNote, contract.GuardTab} {
			v := contract.Variant{Guard: g, VersionFormat: f}
			t.Run(variantName(v), func(t *testing.T) {
				h := cfg.open(t, v, 7)
				pattern := versionPatterns[f]
				seen := 0
				// saw checks a version's form and, for one made at the clock's
				// present (fresh), its time.
				saw := func(what string, ver contract.Version, fresh bool) {
					t.Helper()
					seen++
					if !pattern.MatchString(string(ver)) {
						t.Fatalf("%s: version %q does not match %s", what, ver, pattern)
					}
					if f == contract.FormatCounter || !cfg.FixedClock || !fresh {
						return
					}
					stamp := string(ver)
					want := h.clock.Now().UTC().Truncate(time.Millisecond)
					if f == contract.FormatUSSuffix {
						stamp = stamp[:len(stamp)-len("-000000")]
						want = h.clock.Now().UTC().Truncate(time.Microsecond)
					}
					if at, err := time.Parse(time.RFC3339Nano, stamp); err != nil || !at.Equal(want) {
						t.Fatalf("%s: version %q is not the clock's time %s", what, ver, want.Format(time.RFC3339Nano))
					}
				}
				saw("a new Note", h.list(h.c).Version, true)
				for i, w := range h.writeKinds() {
					h.clock.Advance(1234 * time.Microsecond)
					before := h.guarded(h.c, v, w)
					saw(w.name+"'s read", before, false)
					after := versionOf(t, h.land(h.c, v, w, i))
					saw(w.name, after, true)
					if got := h.guarded(h.c, v, w); got != after {
						t.Fatalf("%s returned version %s, a read then reports %s", w.name, after, got)
					}
					if f == contract.FormatCounter {
						a, _ := strconv.Atoi(string(before))
						b, _ := strconv.Atoi(string(after))
						if b != a+1 {
							t.Fatalf("%s moved a counter version from %s to %s", w.name, before, after)
						}
					}
					if f == contract.FormatMS && !cfg.FixedClock {
						continue // on a real clock two ms versions may be one: the stale write could land
					}
					_, err := w.send(h.c, before, h.key(), i)
					var ce *contract.ConflictError
					if !errors.As(err, &ce) {
						t.Fatalf("%s with stale version %s: %v, want a conflict", w.name, before, err)
					}
					saw(w.name+"'s conflict", ce.Current, true)
				}
				for _, tab := range h.list(h.c).Tabs {
					saw("read_note_tab "+tab.TabID, h.read(h.c, tab.TabID).Version, false)
				}
				if seen < 20 {
					t.Fatalf("only %d versions seen", seen)
				}
			})
		}
	}
}
