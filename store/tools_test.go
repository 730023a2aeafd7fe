package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

var ctx = context.Background()

func TestNewNoteHasFixedTabs(t *testing.T) {
	_, c := openTest(t, Options{})
	l := mustList(t, c)
	want := []contract.TabInfo{
		{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Note", Position: 0},
		{TabID: "files", Type: contract.TypeFiles, Label: "Files", Position: 1},
		{TabID: "sources", Type: contract.TypeSources, Label: "Sources", Position: 2},
	}
	if !reflect.DeepEqual(l.Tabs, want) || l.Version != "1" {
		t.Fatalf("got %+v version %s", l.Tabs, l.Version)
	}
}

func TestReplaceTextBumpsVersion(t *testing.T) {
	_, c := openTest(t, Options{})
	r, err := replaceText(c, "1", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "2" || r.Replayed {
		t.Fatalf("result %+v", r)
	}
	got := mustRead(t, c, "markdown")
	if got.Text != "hello" || got.Version != "2" {
		t.Fatalf("read %+v", got)
	}
}

func TestCreateNoteTabIDsAndOutline(t *testing.T) {
	s, c := openTest(t, Options{})
	clock := s.opts.Clock.(*fakeClock)
	slides := []contract.Slide{{Title: "One", Body: "b"}, {Title: "Two", Notes: "n"}}
	r, err := c.CreateNoteTab(ctx, contract.CreateRequest{NoteID: note, ExpectedVersion: "1", IdempotencyKey: "k1",
		TabType: contract.TypeSlides, Label: "  Deck  ", Slides: slides})
	if err != nil {
		t.Fatal(err)
	}
	ms := clock.Now().UnixMilli()
	want := fmt.Sprintf("slides-1-%s", strconvBase36(ms))
	if r.TabID != want || r.Label != "Deck" || r.Position != 3 || r.Version != "2" {
		t.Fatalf("result %+v, want id %s", r, want)
	}
	if got := mustRead(t, c, r.TabID); !reflect.DeepEqual(got.Slides, slides) {
		t.Fatalf("slides %+v", got.Slides)
	}
	// The counter is per Note and never reused, even after the person adds tabs.
	info, err := c.AddTab(ctx, note, contract.TypeSheet, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.TabID, "sheet-2-") || info.Label != "Sheet" || info.Position != 4 {
		t.Fatalf("added %+v", info)
	}
}

func strconvBase36(n int64) string { return fmt.Sprintf("%s", big36(n)) }

func big36(n int64) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var out []byte
	for n > 0 {
		out = append([]byte{digits[n%36]}, out...)
		n /= 36
	}
	return string(out)
}

func TestSlideOperations(t *testing.T) {
	_, c := openTest(t, Options{})
	deck := mustCreate(t, c, contract.TypeSlides, "Deck")
	v := deck.Version
	r, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: deck.TabID, ExpectedVersion: v, IdempotencyKey: key(),
		Operation: contract.OpSlideAdd, Title: "Sources", Body: "3 links"})
	if err != nil {
		t.Fatal(err)
	}
	r, err = c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: deck.TabID, ExpectedVersion: r.Version, IdempotencyKey: key(),
		Operation: contract.OpSlidesAddOutline, Slides: []contract.Slide{{Title: "a"}, {Title: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed != "slides: +2 (3 in all)" {
		t.Fatalf("changed %q", r.Changed)
	}
	_, err = c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: deck.TabID, ExpectedVersion: r.Version, IdempotencyKey: key(),
		Operation: contract.OpReplaceTabData, Data: json.RawMessage(`{"slides":[{"title":"only"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, c, deck.TabID).Slides; !reflect.DeepEqual(got, []contract.Slide{{Title: "only"}}) {
		t.Fatalf("slides %+v", got)
	}
}

func TestSheetSetRangeAndReadRange(t *testing.T) {
	_, c := openTest(t, Options{})
	sheet := mustCreate(t, c, contract.TypeSheet, "Numbers")
	_, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: sheet.TabID, ExpectedVersion: sheet.Version,
		IdempotencyKey: key(), Operation: contract.OpSheetSetRange, StartRow: 1, StartCol: 2, Values: [][]any{{"a", 1.5}, {true, nil}}})
	if err != nil {
		t.Fatal(err)
	}
	rg, err := c.ReadSheetRange(ctx, contract.RangeRequest{NoteID: note, TabID: sheet.TabID, StartRow: 0, StartCol: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{nil, nil, nil}, {nil, "a", 1.5}, {nil, true, nil}}
	if !reflect.DeepEqual(rg.Values, want) || rg.SheetID != "sheet-1" {
		t.Fatalf("range %+v", rg)
	}
	rg, err = c.ReadSheetRange(ctx, contract.RangeRequest{NoteID: note, TabID: sheet.TabID, StartRow: 1, StartCol: 3, Rows: 1, Cols: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rg.Values, [][]any{{1.5, nil}}) {
		t.Fatalf("range %+v", rg.Values)
	}
}

func TestAddNoteSourceAndPaging(t *testing.T) {
	_, c := openTest(t, Options{})
	v := mustList(t, c).Version
	for i := 0; i < 120; i++ {
		r, err := c.AddNoteSource(ctx, contract.SourceRequest{NoteID: note, ExpectedVersion: v, IdempotencyKey: key(),
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
		p, err := c.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: note, Kind: "sources", Limit: 50, Cursor: cursor})
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
	files, err := c.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: note, Kind: "files"})
	if err != nil || len(files.Items) != 0 {
		t.Fatalf("files %+v %v", files, err)
	}
	if got := mustRead(t, c, "sources").Items; len(got) != 120 {
		t.Fatalf("sources tab lists %d items", len(got))
	}
}

func TestPersonActionsBumpNoteVersion(t *testing.T) {
	_, c := openTest(t, Options{})
	deck := mustCreate(t, c, contract.TypeSlides, "A")
	v := mustList(t, c).Version
	if err := c.MoveTab(ctx, note, deck.TabID, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.RenameTab(ctx, note, deck.TabID, " B "); err != nil {
		t.Fatal(err)
	}
	l := mustList(t, c)
	if l.Tabs[0].TabID != deck.TabID || l.Tabs[0].Label != "B" || l.Tabs[1].TabID != "markdown" || l.Tabs[3].Position != 3 {
		t.Fatalf("tabs %+v", l.Tabs)
	}
	if l.Version == v {
		t.Fatal("person actions did not bump the version")
	}
	if _, err := replaceText(c, v, "stale"); !isConflict(err) {
		t.Fatalf("stale write after a move: %v", err)
	}
	if err := c.MoveTab(ctx, note, "markdown", 99); err != nil {
		t.Fatal(err)
	}
	if l := mustList(t, c); l.Tabs[3].TabID != "markdown" {
		t.Fatalf("move past the end: %+v", l.Tabs)
	}
}

func isConflict(err error) bool {
	var ce *contract.ConflictError
	return errors.As(err, &ce)
}
