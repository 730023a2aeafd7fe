package contracttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// Run runs every clause of the contract against the implementation cfg opens,
// each as a subtest.
func Run(t *testing.T, cfg Config) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Config)
	}{
		{"NewNoteHasFixedTabs", testNewNoteHasFixedTabs},
		{"ReplaceTextBumpsVersion", testReplaceTextBumpsVersion},
		{"CreateNoteTabIDsAndOutline", testCreateNoteTabIDsAndOutline},
		{"SlideOperations", testSlideOperations},
		{"SheetSetRangeAndReadRange", testSheetSetRangeAndReadRange},
		{"AddNoteSourceAndPaging", testAddNoteSourceAndPaging},
		{"PersonActionsBumpNoteVersion", testPersonActionsBumpNoteVersion},
		{"GuardScopes", testGuardScopes},
		{"TabGuardSameTab", testTabGuardSameTab},
		{"MillisecondVersionsCollide", testMillisecondVersionsCollide},
		{"MicrosecondSuffixVersionsDoNotCollide", testMicrosecondSuffixVersionsDoNotCollide},
		{"IdempotencyOrder", testIdempotencyOrder},
		{"KeyScopedPerNoteAndTool", testKeyScopedPerNoteAndTool},
		{"StaleVersionIsAConflict", testStaleVersionIsAConflict},
		{"ReplayReturnsTheFirstResult", testReplayReturnsTheFirstResult},
		{"LostReplyIsWrittenOnce", testLostReplyIsWrittenOnce},
		{"KeyAcrossTools", testKeyAcrossTools},
		{"KeyReusedWithOtherArguments", testKeyReusedWithOtherArguments},
		{"VersionFormats", testVersionFormats},
		{"ConcurrentReapplyLosesNothing", testConcurrentReapplyLosesNothing},
		{"ConcurrentWritersOneWins", testConcurrentWritersOneWins},
		{"CallBadInputChangesNothing", testCallBadInputChangesNothing},
		{"CallHappyPathAndReplay", testCallHappyPathAndReplay},
		{"HugeStartCellsAreRefused", testHugeStartCellsAreRefused},
		{"NegativeVersionNamesTheField", testNegativeVersionNamesTheField},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, cfg) })
	}
}

func testNewNoteHasFixedTabs(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	l := h.list(h.c)
	want := []contract.TabInfo{
		{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Note", Position: 0},
		{TabID: "files", Type: contract.TypeFiles, Label: "Files", Position: 1},
		{TabID: "sources", Type: contract.TypeSources, Label: "Sources", Position: 2},
	}
	if !reflect.DeepEqual(l.Tabs, want) || l.Version != "1" {
		t.Fatalf("got %+v version %s", l.Tabs, l.Version)
	}
	if err := h.b.CreateNote(ctx, note); err == nil {
		t.Fatal("creating a Note that exists succeeded")
	}
}

func testReplaceTextBumpsVersion(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	r, err := h.replaceText(h.c, "1", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "2" || r.Replayed {
		t.Fatalf("result %+v", r)
	}
	got := h.read(h.c, "markdown")
	if got.Text != "hello" || got.Version != "2" {
		t.Fatalf("read %+v", got)
	}
}

func testCreateNoteTabIDsAndOutline(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	slides := []contract.Slide{{Title: "One", Body: "b"}, {Title: "Two", Notes: "n"}}
	r, err := h.c.CreateNoteTab(ctx, contract.CreateRequest{NoteID: note, ExpectedVersion: "1", IdempotencyKey: "k1",
		TabType: contract.TypeSlides, Label: "  Deck  ", Slides: slides})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.TabID, "slides-1-") || r.Label != "Deck" || r.Position != 3 || r.Version != "2" {
		t.Fatalf("result %+v", r)
	}
	if cfg.FixedClock {
		if want := "slides-1-" + strconv.FormatInt(h.clock.Now().UnixMilli(), 36); r.TabID != want {
			t.Fatalf("tab id %s, want %s", r.TabID, want)
		}
	}
	if got := h.read(h.c, r.TabID); !reflect.DeepEqual(got.Slides, slides) {
		t.Fatalf("slides %+v", got.Slides)
	}
	// The counter is per Note and never reused.
	info := h.create(h.c, contract.TypeSheet, "")
	if !strings.HasPrefix(info.TabID, "sheet-2-") || info.Label != "Sheet" || info.Position != 4 {
		t.Fatalf("added %+v", info)
	}
}

func testSlideOperations(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	deck := h.create(h.c, contract.TypeSlides, "Deck")
	r, err := h.c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: deck.TabID, ExpectedVersion: deck.Version, IdempotencyKey: h.key(),
		Operation: contract.OpSlideAdd, Title: "Sources", Body: "3 links"})
	if err != nil {
		t.Fatal(err)
	}
	r, err = h.c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: deck.TabID, ExpectedVersion: r.Version, IdempotencyKey: h.key(),
		Operation: contract.OpSlidesAddOutline, Slides: []contract.Slide{{Title: "a"}, {Title: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed != "slides: +2 (3 in all)" {
		t.Fatalf("changed %q", r.Changed)
	}
	_, err = h.c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: deck.TabID, ExpectedVersion: r.Version, IdempotencyKey: h.key(),
		Operation: contract.OpReplaceTabData, Data: json.RawMessage(`{"slides":[{"title":"only"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.read(h.c, deck.TabID).Slides; !reflect.DeepEqual(got, []contract.Slide{{Title: "only"}}) {
		t.Fatalf("slides %+v", got)
	}
}

func testSheetSetRangeAndReadRange(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	sheet := h.create(h.c, contract.TypeSheet, "Numbers")
	_, err := h.c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: sheet.TabID, ExpectedVersion: sheet.Version,
		IdempotencyKey: h.key(), Operation: contract.OpSheetSetRange, StartRow: 1, StartCol: 2, Values: [][]any{{"a", 1.5}, {true, nil}}})
	if err != nil {
		t.Fatal(err)
	}
	rg, err := h.c.ReadSheetRange(ctx, contract.RangeRequest{NoteID: note, TabID: sheet.TabID, StartRow: 0, StartCol: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{nil, nil, nil}, {nil, "a", 1.5}, {nil, true, nil}}
	if !reflect.DeepEqual(rg.Values, want) || rg.SheetID != "sheet-1" {
		t.Fatalf("range %+v", rg)
	}
	rg, err = h.c.ReadSheetRange(ctx, contract.RangeRequest{NoteID: note, TabID: sheet.TabID, StartRow: 1, StartCol: 3, Rows: 1, Cols: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rg.Values, [][]any{{1.5, nil}}) {
		t.Fatalf("range %+v", rg.Values)
	}
}

func testAddNoteSourceAndPaging(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	v := h.list(h.c).Version
	for i := 0; i < 120; i++ {
		r, err := h.c.AddNoteSource(ctx, contract.SourceRequest{NoteID: note, ExpectedVersion: v, IdempotencyKey: h.key(),
			Title: fmt.Sprintf("page %d", i), URL: fmt.Sprintf("https://example.org/%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("source-%d", i+1); r.SourceID != want {
			t.Fatalf("source id %s, want %s", r.SourceID, want)
		}
		v = r.Version
	}
	calls, seen, cursor := 0, 0, ""
	for {
		p, err := h.c.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: note, Kind: "sources", Limit: 50, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		calls++
		for _, it := range p.Items {
			if want := fmt.Sprintf("https://example.org/%d", seen); it.URL != want {
				t.Fatalf("item %d url %s, want %s", seen, it.URL, want)
			}
			seen++
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if calls != 3 || seen != 120 {
		t.Fatalf("%d calls, %d items; want 3 and 120", calls, seen)
	}
	files, err := h.c.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: note, Kind: "files"})
	if err != nil || len(files.Items) != 0 {
		t.Fatalf("files %+v %v", files, err)
	}
	if got := h.read(h.c, "sources").Items; len(got) != 120 {
		t.Fatalf("sources tab lists %d items", len(got))
	}
}

func testPersonActionsBumpNoteVersion(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	p := h.person(h.c)
	deck := h.create(h.c, contract.TypeSlides, "A")
	v := h.list(h.c).Version
	if err := p.MoveTab(ctx, note, deck.TabID, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.RenameTab(ctx, note, deck.TabID, " B "); err != nil {
		t.Fatal(err)
	}
	l := h.list(h.c)
	if l.Tabs[0].TabID != deck.TabID || l.Tabs[0].Label != "B" || l.Tabs[1].TabID != "markdown" || l.Tabs[3].Position != 3 {
		t.Fatalf("tabs %+v", l.Tabs)
	}
	if l.Version == v {
		t.Fatal("person actions did not bump the version")
	}
	if _, err := h.replaceText(h.c, v, "stale"); !isConflict(err) {
		t.Fatalf("stale write after a move: %v", err)
	}
	if err := p.MoveTab(ctx, note, "markdown", 99); err != nil {
		t.Fatal(err)
	}
	if l := h.list(h.c); l.Tabs[3].TabID != "markdown" {
		t.Fatalf("move past the end: %+v", l.Tabs)
	}
	added, err := p.AddTab(ctx, note, contract.TypeSheet, "")
	if err != nil || added.Label != "Sheet" || added.Position != 4 {
		t.Fatalf("add %+v %v", added, err)
	}
	if err := p.SetCells(ctx, note, added.TabID, "", 2, 1, [][]any{{"x"}}); err != nil {
		t.Fatal(err)
	}
	if cells := h.read(h.c, added.TabID).Sheets[0].Cells; len(cells) != 3 || cells[2][1] != "x" {
		t.Fatalf("cells %v", cells)
	}
	if err := p.SetText(ctx, note, "typed"); err != nil {
		t.Fatal(err)
	}
	if got := h.read(h.c, "markdown").Text; got != "typed" {
		t.Fatalf("text %q", got)
	}
}

// A write to the Sheet tab makes a stale markdown write conflict under the Note
// guard, not under the tab guard, and never under no guard.
func testGuardScopes(t *testing.T, cfg Config) {
	for _, tc := range []struct {
		guard        contract.Guard
		wantConflict bool
	}{
		{contract.GuardNote, true},
		{contract.GuardTab, false},
		{contract.GuardNone, false},
	} {
		t.Run(string(tc.guard), func(t *testing.T) {
			h := cfg.open(t, contract.Variant{Guard: tc.guard}, 0)
			sheet := h.create(h.c, contract.TypeSheet, "S")
			text := h.read(h.c, "markdown")
			cells := h.read(h.c, sheet.TabID)
			if _, err := h.c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: sheet.TabID, ExpectedVersion: cells.Version,
				IdempotencyKey: h.key(), Operation: contract.OpSheetSetRange, Values: [][]any{{"human-1"}}}); err != nil {
				t.Fatal(err)
			}
			_, err := h.replaceText(h.c, text.Version, "claude-1")
			if isConflict(err) != tc.wantConflict {
				t.Fatalf("markdown write after a sheet write: err %v, want conflict %v", err, tc.wantConflict)
			}
			if tc.wantConflict {
				var ce *contract.ConflictError
				errors.As(err, &ce)
				if ce.Current != h.read(h.c, "markdown").Version {
					t.Fatalf("conflict reports %s", ce.Current)
				}
			}
		})
	}
}

// Under the tab guard a stale write to the same tab still conflicts, and
// Note-level writes use the Note version.
func testTabGuardSameTab(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{Guard: contract.GuardTab}, 0)
	v := h.read(h.c, "markdown").Version
	if _, err := h.replaceText(h.c, v, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.replaceText(h.c, v, "b"); !isConflict(err) {
		t.Fatalf("stale write to the same tab: %v", err)
	}
	if l := h.list(h.c); l.Version != "1" {
		t.Fatalf("note version %s after tab writes", l.Version)
	}
	h.create(h.c, contract.TypeSlides, "")
}

// Two commits in the same millisecond get the same ms version, so a writer that
// read before the first passes the check against the second: a lost update.
func testMillisecondVersionsCollide(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{VersionFormat: contract.FormatMS}, 0)
	h.needClock()
	h.clock.Advance(5 * time.Millisecond)
	base := h.read(h.c, "markdown")
	a, err := h.replaceText(h.c, base.Version, "first")
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(300 * time.Microsecond) // same millisecond
	stale := h.read(h.c, "markdown")        // reads version a
	b, err := h.replaceText(h.c, a.Version, "second")
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != b.Version {
		t.Fatalf("versions %s and %s differ within one millisecond", a.Version, b.Version)
	}
	if _, err := h.replaceText(h.c, stale.Version, stale.Text+"\nthird"); err != nil {
		t.Fatalf("stale writer was rejected: %v", err)
	}
	if got := h.read(h.c, "markdown").Text; strings.Contains(got, "second") {
		t.Fatalf("text %q still has the overwritten line", got)
	}
	if a.Version != "2026-11-06T09:00:00.005Z" {
		t.Fatalf("ms version %q", a.Version)
	}
}

func testMicrosecondSuffixVersionsDoNotCollide(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{VersionFormat: contract.FormatUSSuffix}, 3)
	v := h.read(h.c, "markdown").Version
	seen := map[contract.Version]bool{v: true}
	for i := 0; i < 200; i++ { // a fixed clock never moves: every commit shares one microsecond
		r, err := h.replaceText(h.c, v, fmt.Sprint(i))
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.Version] {
			t.Fatalf("version %s repeated after %d writes", r.Version, i)
		}
		seen[r.Version] = true
		if _, err := h.replaceText(h.c, v, "stale"); !isConflict(err) {
			t.Fatalf("stale write passed: %v", err)
		}
		v = r.Version
	}
}

func testIdempotencyOrder(t *testing.T, cfg Config) {
	for _, tc := range []struct {
		order        contract.Order
		wantConflict bool
	}{
		{contract.OrderKeyFirst, false},
		{contract.OrderVersionFirst, true},
	} {
		t.Run(string(tc.order), func(t *testing.T) {
			h := cfg.open(t, contract.Variant{Order: tc.order}, 0)
			req := contract.CreateRequest{NoteID: note, ExpectedVersion: "1", IdempotencyKey: "deck", TabType: contract.TypeSlides}
			first, err := h.c.CreateNoteTab(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			before := h.snapshot(h.c)
			again, err := h.c.CreateNoteTab(ctx, req) // the resend carries the stale version 1
			if tc.wantConflict {
				if !isConflict(err) {
					t.Fatalf("version-first resend: %+v, %v; want a conflict", again, err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				want := first
				want.Replayed = true
				if again != want {
					t.Fatalf("replay %+v, want %+v", again, want)
				}
			}
			if h.snapshot(h.c) != before {
				t.Fatal("a resend changed the Note")
			}
			// With the current version, version-first also replays the key.
			req.ExpectedVersion = first.Version
			if again, err := h.c.CreateNoteTab(ctx, req); err != nil || again.TabID != first.TabID || !again.Replayed {
				t.Fatalf("resend with current version: %+v %v", again, err)
			}
		})
	}
}

func testKeyScopedPerNoteAndTool(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	if err := h.b.CreateNote(ctx, "note-2"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{note, "note-2"} {
		r, err := h.c.AddNoteSource(ctx, contract.SourceRequest{NoteID: n, ExpectedVersion: "1", IdempotencyKey: "same", Title: "t", URL: "https://a.example/x"})
		if err != nil || r.Replayed {
			t.Fatalf("%s: %+v %v", n, r, err)
		}
	}
	_, err := h.c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: "2", IdempotencyKey: "same",
		Operation: contract.OpReplaceText, Text: "x"})
	var bad *contract.InvalidArgumentError
	if !errors.As(err, &bad) || bad.Field != "idempotency_key" {
		t.Fatalf("key reused by another tool: %v", err)
	}
}

// Eight editors, each on its own session, append lines under the Note guard and
// re-apply on conflict: no line is lost and no write fails.
func testConcurrentReapplyLosesNothing(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	editors, edits := 8, 100
	if cfg.Light {
		editors, edits = 4, 25
	}
	var wg sync.WaitGroup
	errs := make(chan error, editors)
	sessions := make([]contract.Session, editors)
	for e := range sessions {
		sessions[e] = h.session()
	}
	for e, s := range sessions {
		wg.Go(func() { errs <- appendLines(s, e, edits, editors*edits) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	text := h.read(h.c, "markdown")
	lines := map[string]bool{}
	for _, l := range strings.Split(text.Text, "\n") {
		lines[l] = true
	}
	for e := 0; e < editors; e++ {
		for i := 0; i < edits; i++ {
			if l := fmt.Sprintf("e%d-%d", e, i); !lines[l] {
				t.Fatalf("line %s lost", l)
			}
		}
	}
	if text.Version != contract.Version(fmt.Sprint(1+editors*edits)) {
		t.Fatalf("version %s after %d writes", text.Version, editors*edits)
	}
}

// appendLines makes edits edits of editor e, re-reading and re-applying on a
// conflict. A conflict means another editor's write landed since the read, so
// no edit needs more tries than there are writes in all (maxTries): a loop
// beyond that is an implementation whose versions never match, and fails.
func appendLines(s contract.Session, e, edits, maxTries int) error {
	for i := 0; i < edits; i++ {
		for try := 0; ; try++ {
			if try == maxTries {
				return fmt.Errorf("editor %d edit %d: %d conflicts in a row, more than there are writes", e, i, try)
			}
			cur, err := s.ReadNoteTab(ctx, note, "markdown")
			if err != nil {
				return err
			}
			_, err = s.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: cur.Version,
				IdempotencyKey: fmt.Sprintf("e%d-%d-%d", e, i, try), Operation: contract.OpReplaceText, Text: cur.Text + "\n" + fmt.Sprintf("e%d-%d", e, i)})
			if err == nil {
				break
			}
			if !isConflict(err) {
				return fmt.Errorf("editor %d edit %d: %w", e, i, err)
			}
		}
	}
	return nil
}

// Writers that all send the same expected version at once: exactly one wins,
// every other gets a conflict naming the winner's version, and none fails.
func testConcurrentWritersOneWins(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	const writers = 8
	sessions := make([]contract.Session, writers)
	for i := range sessions {
		sessions[i] = h.session()
	}
	v := h.read(h.c, "markdown").Version
	res := make([]contract.EditResult, writers)
	errs := make([]error, writers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			<-start
			res[i], errs[i] = s.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: v,
				IdempotencyKey: fmt.Sprintf("racer-%d", i), Operation: contract.OpReplaceText, Text: fmt.Sprintf("racer %d", i)})
		})
	}
	close(start)
	wg.Wait()
	winners := 0
	var won contract.Version
	for i, err := range errs {
		switch {
		case err == nil:
			winners++
			won = res[i].Version
		case !isConflict(err):
			t.Fatalf("racer %d: %v", i, err)
		}
	}
	if winners != 1 {
		t.Fatalf("%d writers won with the same expected version, want 1", winners)
	}
	for i, err := range errs {
		var ce *contract.ConflictError
		if errors.As(err, &ce) && ce.Current != won {
			t.Fatalf("racer %d: conflict reports %s, the winner wrote %s", i, ce.Current, won)
		}
	}
}

// Every kind of bad call through the JSON layer names the problem and changes
// nothing.
func testCallBadInputChangesNothing(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	c := h.c
	deck := h.create(c, contract.TypeSlides, "Deck")
	sheet := h.create(c, contract.TypeSheet, "Sheet")
	v := h.list(c).Version
	slides21 := make([]string, 21)
	for i := range slides21 {
		slides21[i] = fmt.Sprintf(`{"title":"s%d"}`, i)
	}
	rows101 := make([]string, 101)
	for i := range rows101 {
		rows101[i] = `["x"]`
	}
	edit := func(extra string) string {
		return fmt.Sprintf(`{"note_id":%q,"tab_id":"markdown","expected_version":%s,"idempotency_key":"k-bad",%s}`, note, v, extra)
	}
	cases := []struct {
		name, tool, args, errKind, field, inMessage string
	}{
		{"unknown tool", "delete_note", `{}`, "invalid_argument", "tool", `unknown tool "delete_note"`},
		{"malformed json", "edit_note_tab", `{"note_id":`, "invalid_argument", "arguments", "malformed JSON"},
		{"missing required", "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","idempotency_key":"k","operation":"replace_text","text":"x"}`, "invalid_argument", "/expected_version", "required"},
		{"wrong type", "edit_note_tab", edit(`"operation":"replace_text","text":7`), "invalid_argument", "/text", "type string (got number)"},
		{"enum", "edit_note_tab", edit(`"operation":"slides_add","slides":[{"title":"a"}]`), "invalid_argument", "/operation", "enum"},
		{"extra field", "edit_note_tab", edit(`"operation":"slide_add","title":"t","index":0`), "invalid_argument", "/index", "additionalProperties"},
		{"extra slide field", "edit_note_tab", edit(`"operation":"slides_add_outline","slides":[{"title":"a","bullets":["x"]}]`), "invalid_argument", "/slides/0/bullets", "additionalProperties"},
		{"21 slides", "create_note_tab", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","tab_type":"slides","slides":[%s]}`, v, strings.Join(slides21, ",")), "invalid_argument", "/slides", "maxItems 20"},
		{"markdown tab type", "create_note_tab", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","tab_type":"markdown"}`, v), "invalid_argument", "/tab_type", "enum"},
		{"limit 51", "list_note_attachments", `{"note_id":"note-1","kind":"sources","limit":51}`, "invalid_argument", "/limit", "maximum 50"},
		{"101-row read", "read_sheet_range", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"rows":101}`, sheet.TabID), "invalid_argument", "/rows", "maximum 100"},
		{"101-row write", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"sheet_set_range","values":[%s]}`, sheet.TabID, v, strings.Join(rows101, ",")), "invalid_argument", "/values", "maxItems 100"},
		{"ftp url", "add_note_source", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","title":"t","url":"ftp://example.org/a"}`, v), "invalid_argument", "/url", "pattern"},
		{"scheme-less url", "add_note_source", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","title":"t","url":"example.org/a"}`, v), "invalid_argument", "/url", "pattern"},
		{"missing title", "add_note_source", fmt.Sprintf(`{"note_id":"note-1","expected_version":%s,"idempotency_key":"k","url":"https://example.org/report"}`, v), "invalid_argument", "/title", "required"},
		{"unknown note", "edit_note_tab", `{"note_id":"note-9","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"x"}`, "not_found", "note_id", `"note-9" not found`},
		{"unknown tab", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":"slides-9-zz","expected_version":%s,"idempotency_key":"k","operation":"replace_text","text":"x"}`, v), "not_found", "tab_id", `"slides-9-zz" not found`},
		{"unknown tab read", "read_note_tab", `{"note_id":"note-1","tab_id":"nope"}`, "not_found", "tab_id", "not found"},
		{"edit sources tab", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":"sources","expected_version":%s,"idempotency_key":"k","operation":"replace_text","text":"x"}`, v), "invalid_argument", "tab_id", "sources tabs cannot be edited"},
		{"edit files tab", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":"files","expected_version":%s,"idempotency_key":"k","operation":"replace_tab_data","data":{}}`, v), "invalid_argument", "tab_id", "files tabs cannot be edited"},
		{"operation on wrong tab", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"replace_text","text":"x"}`, deck.TabID, v), "invalid_argument", "operation", "does not apply to slides tab"},
		{"field of another operation", "edit_note_tab", edit(`"operation":"replace_text","text":"x","title":"t"`), "invalid_argument", "title", "not used by replace_text"},
		{"bad replace data", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"replace_tab_data","data":{"slides":[{"title":"a","layout":"x"}]}}`, deck.TabID, v), "invalid_argument", "data", "unknown field"},
		{"unknown sheet", "edit_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"expected_version":%s,"idempotency_key":"k","operation":"sheet_set_range","sheet_id":"s9","values":[[1]]}`, sheet.TabID, v), "not_found", "sheet_id", "not found"},
		{"bad cursor", "list_note_attachments", `{"note_id":"note-1","cursor":"zzz"}`, "invalid_argument", "cursor", "not a cursor"},
		{"version not a counter", "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":"abc","idempotency_key":"k","operation":"replace_text","text":"x"}`, "invalid_argument", "expected_version", "want an integer"},
		{"stale version", "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":1,"idempotency_key":"k","operation":"replace_text","text":"x"}`, "version_conflict", "", ""},
	}
	before := h.snapshot(c)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := h.call(c, tc.tool, tc.args)
			if out["error"] != tc.errKind {
				t.Fatalf("got %v, want error %s", out, tc.errKind)
			}
			if tc.errKind == "version_conflict" {
				if fmt.Sprint(out["current_version"]) != string(v) {
					t.Fatalf("current_version %v, want %s", out["current_version"], v)
				}
				return
			}
			if out["field"] != tc.field || !strings.Contains(fmt.Sprint(out["message"]), tc.inMessage) {
				t.Fatalf("got field %v message %q; want field %s containing %q", out["field"], out["message"], tc.field, tc.inMessage)
			}
		})
	}
	if after := h.snapshot(c); after != before {
		t.Fatalf("bad calls changed the Note:\nbefore\n%s\nafter\n%s", before, after)
	}
}

func testCallHappyPathAndReplay(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	c := h.c
	out := h.call(c, "list_note_tabs", `{"note_id":"note-1"}`)
	if out["version"] != 1.0 || len(out["tabs"].([]any)) != 3 {
		t.Fatalf("list %v", out)
	}
	args := `{"note_id":"note-1","expected_version":1,"idempotency_key":"create-1","tab_type":"slides","label":"Plan","slides":[{"title":"Intro","body":"b","notes":"n"}]}`
	first := h.call(c, "create_note_tab", args)
	again := h.call(c, "create_note_tab", args)
	if again["replayed"] != true || again["tab_id"] != first["tab_id"] || first["replayed"] != nil {
		t.Fatalf("first %v, again %v", first, again)
	}
	read := h.call(c, "read_note_tab", fmt.Sprintf(`{"note_id":"note-1","tab_id":%q}`, first["tab_id"]))
	data := read["data"].(map[string]any)["slides"].([]any)
	if len(data) != 1 || read["version"] != 2.0 {
		t.Fatalf("read %v", read)
	}
	edit := h.call(c, "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":2,"idempotency_key":"e1","operation":"replace_text","text":"hi"}`)
	if edit["version"] != 3.0 || edit["changed"] != "text: 2 characters" {
		t.Fatalf("edit %v", edit)
	}
	src := h.call(c, "add_note_source", `{"note_id":"note-1","expected_version":3,"idempotency_key":"s1","title":"Report","url":"https://example.org/report"}`)
	if src["source_id"] != "source-1" {
		t.Fatalf("source %v", src)
	}
	page := h.call(c, "list_note_attachments", `{"note_id":"note-1","kind":"sources","limit":1}`)
	items := page["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["url"] != "https://example.org/report" || page["next_cursor"] != nil {
		t.Fatalf("page %v", page)
	}
}

// Huge start cells are refused, not overflowed: a write with them must neither
// fail the implementation nor wedge it, so the next write on another session
// lands.
func testHugeStartCellsAreRefused(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	sheet := h.create(h.c, contract.TypeSheet, "S")
	const huge = 9223372036854775807
	for _, req := range []contract.EditRequest{
		{StartRow: huge, Values: [][]any{{"x"}}},
		{StartCol: huge, Values: [][]any{{"x"}}},
	} {
		req.NoteID, req.TabID, req.ExpectedVersion, req.IdempotencyKey, req.Operation = note, sheet.TabID, sheet.Version, h.key(), contract.OpSheetSetRange
		// A typed call is checked by the rules; one that crosses a JSON
		// layer (an MCP server) may be refused by the schema first.
		var bad *contract.InvalidArgumentError
		var schemaErr *contract.SchemaError
		if _, err := h.c.EditNoteTab(ctx, req); !errors.As(err, &bad) && !errors.As(err, &schemaErr) {
			t.Fatalf("start %d/%d: %v, want an invalid argument", req.StartRow, req.StartCol, err)
		}
	}
	for _, args := range []string{
		fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"start_row":%d,"rows":2}`, sheet.TabID, uint64(huge)),
		fmt.Sprintf(`{"note_id":"note-1","tab_id":%q,"start_col":%d,"cols":2}`, sheet.TabID, uint64(huge)),
	} {
		if out := h.call(h.c, "read_sheet_range", args); out["error"] != "invalid_argument" {
			t.Fatalf("read %s: %v", args, out)
		}
	}
	other := h.session()
	if _, err := h.replaceText(other, h.read(other, "markdown").Version, "still writable"); err != nil {
		t.Fatalf("the implementation is wedged: %v", err)
	}
}

func testNegativeVersionNamesTheField(t *testing.T, cfg Config) {
	h := cfg.open(t, contract.Variant{}, 0)
	out := h.call(h.c, "edit_note_tab", `{"note_id":"note-1","tab_id":"markdown","expected_version":-1,"idempotency_key":"k","operation":"replace_text","text":"x"}`)
	if out["error"] != "invalid_argument" || out["field"] != "/expected_version" {
		t.Fatalf("%v", out)
	}
}
